// Types for render.js, which the page loads as is and the tests import to inspect what a person would see.

export interface RenderContext {
  now: number;
  /** Local user ids whose @mentions in people's messages highlight as pings. */
  users?: string[];
  botName?: string;
}

export interface RenderableMessage {
  id: string;
  author:
    | { kind: 'bot'; name: string }
    | { kind: 'user'; userId: string; displayName: string; roles: string[] };
  content: { kind: string; [key: string]: unknown };
  createdAt: number;
  /** The bot's messages carry their neutral view (bot/chat/message-view.ts), which is what is rendered. */
  view?: unknown;
}

export function escapeHtml(value: unknown): string;
export function renderMarkdown(
  text: string,
  options?: { pings?: boolean; users?: string[]; botName?: string },
): string;
export function renderMessage(
  message: RenderableMessage,
  context: RenderContext,
  extras?: { continued?: boolean; footer?: string },
): string;
export function renderContent(message: RenderableMessage, context: RenderContext): string;
export function renderEphemeral(
  ephemeral: { id: string; text: string; at: number },
  context: RenderContext,
): string;
export function formatClock(at: number): string;
export function formatCountdown(remainingMs: number): string;
export function initials(name: string): string;
export function hue(id: string): number;
export const ICONS: Record<string, string>;
