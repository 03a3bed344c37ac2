// What one playground message may hold: long text is cut, with a note saying where the whole of it is kept.

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
export function capMessageContent<Content extends { kind: string }>(
  content: Content,
  limitBytes = MESSAGE_TEXT_LIMIT_BYTES,
): Content {
  const runId = 'runId' in content && typeof content.runId === 'string' ? content.runId : undefined;
  let capped: Record<string, unknown> | undefined;
  for (const field of TEXT_FIELDS) {
    const value = (content as Record<string, unknown>)[field];
    if (typeof value !== 'string' || Buffer.byteLength(value) <= limitBytes) continue;
    capped ??= { ...content };
    capped[field] = `${cutToBytes(value, limitBytes)}\n\n${cutNote(limitBytes, runId)}`;
  }
  const details = content.kind === 'result' ? (content as { details?: unknown }).details : undefined;
  if (Array.isArray(details)) {
    if (Buffer.byteLength(JSON.stringify(details)) > limitBytes) {
      capped ??= { ...content };
      capped.details = (details as { tool: string; summary: string }[]).map(({ tool, summary }) => ({
        tool,
        summary: `${cutToBytes(summary, 1024)} (${cutNote(limitBytes, runId)})`,
      }));
    }
  }
  return (capped as Content | undefined) ?? content;
}

function cutNote(limitBytes: number, runId: string | undefined): string {
  const size = `${Math.round(limitBytes / 1024)} KB`;
  return runId === undefined
    ? `… output cut at ${size}.`
    : `… output cut at ${size}; \`opsbot show ${runId}\` prints the full text.`;
}

/** The longest prefix of `text` within `limitBytes` of UTF-8, never splitting a character. */
function cutToBytes(text: string, limitBytes: number): string {
  if (Buffer.byteLength(text) <= limitBytes) return text;
  const bytes = Buffer.from(text, 'utf8').subarray(0, limitBytes);
  // A cut in the middle of a multi-byte character leaves a replacement character at the end; drop it.
  return bytes.toString('utf8').replace(/\uFFFD$/, '');
}
