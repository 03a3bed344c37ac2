// The CLI's one way to the terminal: every byte it prints passes here, with its control characters made visible.
import type { Writable } from 'node:stream';
import { escapeControls } from '../control-characters.js';
import { colourCodes } from './terminal-colors.js';

export { escapeControls };

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
