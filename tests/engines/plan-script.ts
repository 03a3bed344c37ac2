// Scripts a model's plan for the plan engine's tests: a reply whose text is the plan JSON, as the prompt asks.
import type { PlanChecklistMessage } from '../../agent/chat-port.js';
import { type FakeAnswer, type RecordedRequest, text } from '../fakes/openai-server.js';
import type { RecordingChatPort } from '../fakes/recording-chat-port.js';

export interface ScriptedStep {
  id: string;
  tool: string;
  args?: Record<string, unknown>;
  depends_on?: string[];
  why?: string;
}

/** A reply that is the plan, fenced as models often write it. */
export function planReply(steps: ScriptedStep[]): FakeAnswer {
  return text(`\`\`\`json\n${JSON.stringify({ steps })}\n\`\`\``);
}

/** The last message of a request (what opsbot told the model last), as text. */
export function lastMessage(request: RecordedRequest): string {
  return String(request.body.messages?.at(-1)?.content ?? '');
}

/** The system prompt of a request. */
export function systemPrompt(request: RecordedRequest): string {
  return String(request.body.messages?.[0]?.content ?? '');
}

/** Each version of the run's checklist, first as posted then as updated. */
export function checklistVersions(chat: RecordingChatPort): PlanChecklistMessage[] {
  const post = chat.posts.find((entry) => entry.message.kind === 'plan');
  if (!post) return [];
  return [post.message, ...post.updates].filter(
    (message): message is PlanChecklistMessage => message.kind === 'plan',
  );
}

/** The checklist's steps as `number tool state` lines, for short assertions. */
export function stateLines(checklist: PlanChecklistMessage | undefined): string[] {
  return (checklist?.steps ?? []).map((step) => `${step.number} ${step.tool} ${step.state}`);
}
