// What one playground message may hold: long text is cut, with a note saying where the whole of it is kept.
import type { MessageContent } from './playground-store.js';

/**
 * Text the playground stores and streams per field of a message. The run's record in the Store keeps the whole
 * answer (a trace keeps only 200-character summaries of each step, so the note does not send people there for it).
 */
export const MESSAGE_TEXT_LIMIT_BYTES = 64 * 1024;

type TextField = 'text' | 'question' | 'argumentsJson' | 'summary';
const TEXT_FIELDS: readonly TextField[] = ['text', 'question', 'argumentsJson', 'summary'];

/**
 * Returns the content with each long text field cut to `limitBytes` (UTF-8) and a note appended, and a result's
 * structured details reduced to their summaries when their data alone is larger than that. Content within the
 * limit comes back as it was.
 */
export function capMessageContent(
  content: MessageContent,
  limitBytes = MESSAGE_TEXT_LIMIT_BYTES,
): MessageContent {
  const runId = 'runId' in content ? content.runId : undefined;
  let capped: Record<string, unknown> | undefined;
  for (const field of TEXT_FIELDS) {
    const value = (content as Record<string, unknown>)[field];
    if (typeof value !== 'string' || Buffer.byteLength(value) <= limitBytes) continue;
    capped ??= { ...content };
    capped[field] = `${cutToBytes(value, limitBytes)}\n\n${cutNote(limitBytes, runId)}`;
  }
  if (content.kind === 'result' && content.details) {
    if (Buffer.byteLength(JSON.stringify(content.details)) > limitBytes) {
      capped ??= { ...content };
      capped.details = content.details.map(({ tool, summary }) => ({
        tool,
        summary: `${cutToBytes(summary, 1024)} (${cutNote(limitBytes, runId)})`,
      }));
    }
  }
  return (capped as MessageContent | undefined) ?? content;
}

function cutNote(limitBytes: number, runId: string | undefined): string {
  const size = `${Math.round(limitBytes / 1024)} KB`;
  return runId === undefined
    ? `… output cut at ${size}.`
    : `… output cut at ${size}; the full text is kept in the record of run ${runId} in the store, and ` +
        `\`opsbot trace ${runId}\` shows its steps.`;
}

/** The longest prefix of `text` within `limitBytes` of UTF-8, never splitting a character. */
function cutToBytes(text: string, limitBytes: number): string {
  if (Buffer.byteLength(text) <= limitBytes) return text;
  const bytes = Buffer.from(text, 'utf8').subarray(0, limitBytes);
  // A cut in the middle of a multi-byte character leaves a replacement character at the end; drop it.
  return bytes.toString('utf8').replace(/\uFFFD$/, '');
}
