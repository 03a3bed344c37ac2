// Control characters made visible, for every text that reaches a terminal: the CLI's output and the logs.

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
