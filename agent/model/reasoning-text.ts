// Separates the reasoning that DeepSeek-R1, Qwen3 and others write before their reply (a <think> block) from it.

export interface Reasoned {
  /** The reply without its reasoning: trimmed when there was some, null when nothing is left. */
  text: string | null;
  /** Whether the reply began with reasoning. */
  thought: boolean;
}

const OPEN = '<think>';
const CLOSE = '</think>';

/**
 * The reply after the reasoning at its start: each leading `<think>…</think>` block, a block left unclosed (all of
 * the rest is reasoning, as in a reply cut off while thinking), and text before a `</think>` with no opening tag
 * (templates that open the block in the prompt). A reply without reasoning is returned as it is.
 */
export function withoutThinking(content: string | null): Reasoned {
  if (content === null) return { text: null, thought: false };
  let rest = content;
  let thought = false;
  const close = rest.indexOf(CLOSE);
  const open = rest.indexOf(OPEN);
  if (close !== -1 && (open === -1 || open > close)) {
    rest = rest.slice(close + CLOSE.length);
    thought = true;
  }
  for (let trimmed = rest.trimStart(); trimmed.startsWith(OPEN); trimmed = rest.trimStart()) {
    thought = true;
    const end = trimmed.indexOf(CLOSE, OPEN.length);
    rest = end === -1 ? '' : trimmed.slice(end + CLOSE.length);
  }
  if (!thought) return { text: content, thought };
  const text = rest.trim();
  return { text: text === '' ? null : text, thought };
}
