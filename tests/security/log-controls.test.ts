// attack: the logs `npm start` prints reached the terminal with control characters in them: a tool's error or a
// header quoted in a log line carried ESC (a title change, a screen clear) or the 8-bit CSI U+009B, raw in JSON
// lines (JSON.stringify leaves C1 alone) and raw in pretty lines (pino-pretty unescapes ESC). Every string in a
// record is now made visible, as the CLI's own output is.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../bot/logger.js';

const HOSTILE = 'upstream said \u001b]0;root@prod\u0007\u001b[2J and \u009b2J, then\rFAKE ok';
/** Every C0 and C1 control, and DEL, but newline and tab. */
const RAW_CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/;

function capture() {
  const lines: string[] = [];
  return { lines, destination: { write: (line: string) => void lines.push(line) } };
}

describe('attack: control characters in log lines', () => {
  it('JSON lines carry none raw, in the message, a field, a binding or an error', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ level: 'info', destination, pretty: false });
    logger.child({ target: HOSTILE }).warn({ said: HOSTILE, err: new Error(HOSTILE) }, HOSTILE);
    const line = lines.join('');
    expect(line).not.toMatch(RAW_CONTROL);
    expect(line).not.toContain('\\u001b');
    const record = JSON.parse(line) as { msg: string; said: string; target: string };
    expect(record.msg).toBe('upstream said \\x1b]0;root@prod\\x07\\x1b[2J and \\x9b2J, then\\rFAKE ok');
    expect(record.said).toBe(record.msg);
    expect(record.target).toBe(record.msg);
  });

  it('pretty lines carry none raw either, with colour off', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ level: 'info', destination, pretty: true });
    logger.warn({ said: HOSTILE }, HOSTILE);
    const line = lines.join('');
    expect(line).toContain('upstream said \\x1b]0;root@prod\\x07');
    expect(line).not.toMatch(RAW_CONTROL);
  });

  it('still redacts first, then shows the controls', () => {
    const { lines, destination } = capture();
    const redact = (text: string) => text.replace(/xoxb-[A-Za-z0-9-]+/g, '[REDACTED]');
    createLogger({ level: 'info', destination, pretty: false, redact }).info('token xoxb-123-abc\u001b[2J');
    expect(JSON.parse(lines[0]!).msg).toBe('token [REDACTED]\\x1b[2J');
  });
});
