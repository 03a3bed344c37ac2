// The code blocks every renderer makes: nothing inside one can close its fence, on Slack or Discord.

const FENCE = '```';

/** U+200B ZERO WIDTH SPACE: invisible, and a backtick run it splits no longer reads as a fence. */
const ZERO_WIDTH_SPACE = '\u200b';

/** No two backticks stay adjacent, so no run of three (or more) can end the block the text sits in. */
export function escapeFences(code: string): string {
  return code.replace(/`(?=`)/g, `\`${ZERO_WIDTH_SPACE}`);
}

/** `code` in a fenced block, with a language tag when one is given (Discord colours `json`). */
export function fencedCode(code: string, language = ''): string {
  return `${FENCE}${language}\n${escapeFences(code)}\n${FENCE}`;
}

/** `text` as inline code: a backtick inside would end it, so each is shown as U+02CB, which looks the same. */
export function inlineCode(text: string): string {
  return `\`${text.replaceAll('`', 'ˋ')}\``;
}
