// Deny with a reason: a Deny click opens a modal (one optional paragraph, at most 500 characters) whose custom_id
// is the Deny button's own opaque `deny:<approvalId>`, checked with zod again when the form comes back. When the
// modal cannot be shown, the click denies without a reason, as before.
import type { APIModalInteractionResponseCallbackData, ButtonInteraction } from 'discord.js';
import { errorMessage } from '../../agent/errors.js';
import type { Logger } from '../../agent/logger.js';
import { decodeButton, encodeButton } from '../chat/button-codec.js';
import { clip } from '../chat/split-text.js';

/** The text input's custom_id inside the modal. */
export const REASON_INPUT_ID = 'reason';
/** What a denial's reason may hold (ChatEvent.reason). */
export const MAX_REASON_CHARS = 500;
/** Discord's limit on a modal's title. */
const MODAL_TITLE_CHARS = 45;
/** Interaction has already been acknowledged: the click was answered already (Discord delivered it twice). */
const ALREADY_ACKNOWLEDGED = 40060;

/** The modal for denying one approval; `tool` (read off the card) only names it in the title. */
export function denyModal(approvalId: string, tool?: string): APIModalInteractionResponseCallbackData {
  return {
    custom_id: encodeButton({ action: 'deny', approvalId }),
    title: clip(tool ? `Deny ${tool}?` : 'Deny this request?', MODAL_TITLE_CHARS),
    components: [
      {
        type: 1,
        components: [
          {
            type: 4,
            custom_id: REASON_INPUT_ID,
            style: 2,
            label: 'Reason (optional)',
            placeholder: 'Shown on the card and given to the run',
            required: false,
            max_length: MAX_REASON_CHARS,
          },
        ],
      },
    ],
  };
}

/** The approval a submitted deny modal is about, or undefined for a modal that is not opsbot's deny form. */
export function deniedApprovalId(customId: unknown): string | undefined {
  const intent = decodeButton(customId);
  return intent?.action === 'deny' ? intent.approvalId : undefined;
}

/** The reason as typed, trimmed; undefined when left empty, so an empty form is a plain denial. */
export function reasonOf(value: string | undefined): string | undefined {
  const trimmed = value?.trim() ?? '';
  return trimmed === '' ? undefined : trimmed;
}

/** The tool an approval card names in its `Tool` field (rendered as code), for the modal's title only. */
export function toolOnCard(embeds: readonly { fields: readonly { name: string; value: string }[] }[]) {
  const value = embeds.flatMap((embed) => embed.fields).find((field) => field.name === 'Tool')?.value;
  const tool = value?.replace(/^`|`$/g, '').trim();
  return tool ? tool : undefined;
}

/**
 * Answers a Deny click with the reason modal (the click's ack). `shown` and `answered` (Discord delivered a click
 * twice, and the first got the modal) need nothing more; `failed` means deny at once, without a reason.
 */
export async function showDenyModal(
  interaction: Pick<ButtonInteraction, 'id' | 'showModal'>,
  approval: { approvalId: string; tool?: string | undefined },
  logger: Logger,
): Promise<'shown' | 'answered' | 'failed'> {
  try {
    await interaction.showModal(denyModal(approval.approvalId, approval.tool));
    return 'shown';
  } catch (error) {
    const code = Number((error as { code?: unknown }).code);
    if (code === ALREADY_ACKNOWLEDGED) {
      logger.info({ interaction: interaction.id }, 'a Deny click was answered already; not denying it again');
      return 'answered';
    }
    logger.warn(
      { err: errorMessage(error), code, interaction: interaction.id, approvalId: approval.approvalId },
      'could not show the deny reason form; denying without a reason',
    );
    return 'failed';
  }
}
