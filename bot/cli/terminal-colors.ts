// ANSI colours for the CLI, only when stdout is a terminal and NO_COLOR is unset, as marks the output turns into
// colour codes: an escape character in text never reaches the terminal (bot/cli/terminal-stream.ts).
import { randomBytes } from 'node:crypto';

const useColor = process.stdout.isTTY === true && process.env.NO_COLOR === undefined;

/**
 * A colour is written as a private-use mark sealed with this process's random key. Text from the model or a tool
 * cannot know the key, so it cannot forge a mark; and the key is never printed, since every mark becomes a code.
 */
const SEAL = randomBytes(12).toString('hex');
const STYLE_MARK = new RegExp(`\uE000${SEAL}(\\d{1,2})\uE001`, 'g');

const mark = (code: string) => `\uE000${SEAL}${code}\uE001`;
const paint = (code: string) => (text: string) => (useColor ? `${mark(code)}${text}${mark('0')}` : text);
export const dim = paint('2');
export const bold = paint('1');
export const green = paint('32');
export const red = paint('31');
export const yellow = paint('33');
export const cyan = paint('36');

/** Our colour marks as the terminal's codes (SGR, `ESC [ n m`), which change colour and nothing else. */
export function colourCodes(text: string): string {
  return text.replace(STYLE_MARK, (_mark, code: string) => `\u001b[${code}m`);
}

/** The text as it takes room on screen: colours take none. */
export function withoutColour(text: string): string {
  return text.replace(STYLE_MARK, '');
}
