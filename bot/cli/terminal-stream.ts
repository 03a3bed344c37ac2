// The CLI's one way to the terminal: every byte it prints passes here, with its control characters made visible.
import type { Writable } from 'node:stream';
import { colourCodes } from './terminal-colors.js';

/**
 * Every C0 and C1 control but newline and tab, and DEL: ESC (OSC 52 clipboard writes, title changes, screen
 * clears), the 8-bit CSI U+009B and OSC U+009D, a bare CR that would overwrite the line, BEL, backspace.
 */
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

/** Shown as `\x1b`, `\x9b`, `\r`: visible, and never acted on. */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, (character) =>
    character === '\r' ? '\\r' : `\\x${character.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}

/** Text for the terminal: controls escaped first, then our own colour marks turned into colour codes. */
export function terminalText(text: string): string {
  return colourCodes(escapeControls(text));
}

/**
 * A stdout or stderr the CLI writes to. Commands get only these (CliIo), never the raw stream, so no output of
 * the CLI (answers, tool output, errors, logs, prompts) can reach the terminal without `terminalText`.
 */
export class TerminalStream {
  readonly #target: Pick<Writable, 'write'>;

  constructor(target: Pick<Writable, 'write'>) {
    this.#target = target;
  }

  write(text: string | Uint8Array): boolean {
    return this.#target.write(terminalText(typeof text === 'string' ? text : Buffer.from(text).toString()));
  }
}
