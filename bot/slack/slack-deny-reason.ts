// Deny with a reason on Slack: a click on Deny opens a small modal with an optional reason, and its submission
// denies the approval with that reason, as the playground and the CLI can. Approve stays one click. When the
// modal cannot be opened (the click's trigger expired), the click denies without a reason, as it did before.
import type { App } from '@slack/bolt';
import { z } from 'zod';
import type { Conversation } from '../../agent/conversation.js';
import type { Logger } from '../../agent/logger.js';
import type { ChatEvent } from '../chat/chat-event.js';
import type { EventIntake } from '../chat/event-intake.js';
import type { EphemeralReply } from './slack-ephemeral.js';
import type { SlackIdentity } from './slack-identity.js';

export const DENY_REASON_CALLBACK = 'opsbot_deny_reason';
const REASON_BLOCK = 'reason';
const REASON_INPUT = 'reason';
/** The kernel keeps a reason of at most this many characters (ChatEvent's rule). */
const REASON_MAX = 500;

/** What the modal carries back: only the approval's opaque id and where its card is. */
const DenyMetadataSchema = z.object({
  approvalId: z.string().regex(/^[A-Za-z0-9_-]{1,90}$/),
  channelId: z.string().min(1),
  threadTs: z.string().min(1),
  channelName: z.string().optional(),
  /** The team the Deny click came from, so the submission is checked against the card's place like a click. */
  workspaceId: z.string().min(1).optional(),
  /** The card's own message, so a card whose approval is gone is closed there, as a click would. */
  messageTs: z.string().min(1).optional(),
});
type DenyMetadata = z.infer<typeof DenyMetadataSchema>;

const ViewSubmissionSchema = z.object({
  user: z.object({ id: z.string().min(1) }),
  view: z.object({
    id: z.string().min(1),
    callback_id: z.literal(DENY_REASON_CALLBACK),
    private_metadata: z.string(),
    state: z.object({
      values: z.record(z.string(), z.record(z.string(), z.object({ value: z.string().nullish() }).loose())),
    }),
  }),
});

export function denyReasonView(metadata: DenyMetadata) {
  return {
    type: 'modal' as const,
    callback_id: DENY_REASON_CALLBACK,
    private_metadata: JSON.stringify(metadata),
    title: { type: 'plain_text' as const, text: 'Deny this action' },
    submit: { type: 'plain_text' as const, text: 'Deny' },
    close: { type: 'plain_text' as const, text: 'Cancel' },
    blocks: [
      {
        type: 'input',
        block_id: REASON_BLOCK,
        optional: true,
        label: { type: 'plain_text' as const, text: 'Why? (optional)' },
        hint: { type: 'plain_text' as const, text: 'Shown on the approval card and in the thread.' },
        element: {
          type: 'plain_text_input',
          action_id: REASON_INPUT,
          multiline: true,
          max_length: REASON_MAX,
        },
      },
    ],
  };
}

/** Opens the modal for a Deny click; false when Slack refused (then the click denies without a reason). */
export async function openDenyReason(
  app: App,
  triggerId: string | undefined,
  metadata: DenyMetadata,
  logger: Logger,
): Promise<boolean> {
  if (!triggerId) return false;
  try {
    await app.client.views.open({ trigger_id: triggerId, view: denyReasonView(metadata) });
    return true;
  } catch (error) {
    logger.warn(
      { err: error instanceof Error ? error.message : String(error) },
      'could not open the deny-reason dialog; denying without a reason',
    );
    return false;
  }
}

export interface DenyReasonDeps {
  intake: Pick<EventIntake, 'receive'>;
  identity: Pick<SlackIdentity, 'principal'>;
  ephemeral: EphemeralReply;
  logger: Logger;
}

/** The modal's submission becomes a `deny` action with the reason, decided by the kernel like any click. */
export function registerDenyReason(app: App, deps: DenyReasonDeps): void {
  app.view(DENY_REASON_CALLBACK, async ({ ack, body }) => {
    const parsed = ViewSubmissionSchema.safeParse(body);
    const metadata = parsed.success
      ? DenyMetadataSchema.safeParse(safeJson(parsed.data.view.private_metadata))
      : undefined;
    if (!parsed.success || !metadata?.success) {
      await ack();
      return deps.logger.warn({}, 'a deny-reason submission in an unexpected shape');
    }
    const { user, view } = parsed.data;
    const where = metadata.data;
    const reason = view.state.values[REASON_BLOCK]?.[REASON_INPUT]?.value?.trim().slice(0, REASON_MAX);
    const conversation: Conversation = {
      platform: 'slack',
      channelId: where.channelId,
      threadId: where.threadTs,
      ...(where.channelName ? { channelName: where.channelName } : {}),
      ...(where.workspaceId ? { workspaceId: where.workspaceId } : {}),
    };
    await deps.intake.receive({
      name: 'deny reason',
      ack: () => ack(),
      reply: (text) =>
        deps.ephemeral({ channel: where.channelId, user: user.id, threadTs: where.threadTs }, text),
      build: async (): Promise<ChatEvent> => ({
        kind: 'action',
        // One submission of one modal counts once, however often it arrives.
        eventId: `deny-reason:${view.id}:${user.id}`,
        principal: await deps.identity.principal(user.id),
        conversation,
        action: 'deny',
        target: where.approvalId,
        ...(where.messageTs ? { messageId: where.messageTs } : {}),
        ...(reason ? { reason } : {}),
      }),
    });
  });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
