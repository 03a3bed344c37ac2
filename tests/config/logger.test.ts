// The process logger: JSON records, the kernel's Logger shape, and redaction of every string it writes.
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../agent/logger.js';
import { createLogger } from '../../bot/logger.js';

const SECRET = 'xoxb-1234567890-abcdefghijkl';
const redact = (text: string) => text.replace(/xox[abp]-[A-Za-z0-9-]+/g, '[REDACTED]');

interface ErrorRecord {
  msg?: string;
  err: { type: string; message: string; stack: string };
}

function capture() {
  const lines: string[] = [];
  return {
    lines,
    records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
    destination: { write: (line: string) => void lines.push(line) },
  };
}

describe('createLogger', () => {
  it('satisfies the kernel Logger interface', () => {
    const { destination, records } = capture();
    const logger: Logger = createLogger({ level: 'info', destination });
    logger.child({ runId: 'r1' }).info({ step: 1 }, 'stepped');
    expect(records()[0]).toMatchObject({ level: 30, runId: 'r1', step: 1, msg: 'stepped' });
  });

  it('writes JSON lines at the level asked for', () => {
    const { destination, records } = capture();
    const logger = createLogger({ level: 'warn', destination });
    logger.info('hidden');
    logger.warn({ a: 1 }, 'shown');
    expect(records().map((record) => record.msg)).toEqual(['shown']);
  });

  it('redacts a token in a field, the message, nested values, format arguments and bindings', () => {
    const { destination, lines } = capture();
    const logger = createLogger({ level: 'debug', redact, destination });
    logger
      .child({ token: SECRET })
      .child({ grandchild: SECRET })
      .info(
        { header: `Bearer ${SECRET}`, nested: { list: ['ok', SECRET] }, count: 3 },
        `posting with ${SECRET} as %s`,
        SECRET,
      );
    const output = lines.join('');
    expect(output).not.toContain(SECRET);
    const record = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(record).toMatchObject({
      token: '[REDACTED]',
      grandchild: '[REDACTED]',
      header: 'Bearer [REDACTED]',
      nested: { list: ['ok', '[REDACTED]'] },
      count: 3,
      msg: 'posting with [REDACTED] as [REDACTED]',
    });
  });

  it('redacts error messages, stacks and causes', () => {
    const { destination, lines } = capture();
    const logger = createLogger({ level: 'info', redact, destination });
    const error = new Error(`auth failed for ${SECRET}`, { cause: new Error(`cause ${SECRET}`) });
    logger.error({ err: error }, 'call failed');
    logger.error(error);
    const output = lines.join('');
    expect(output).not.toContain(SECRET);
    const [first, second] = lines.map((line) => JSON.parse(line) as ErrorRecord);
    // pino's standard error shape: the causes' messages and stacks are appended to the error's own.
    expect(first?.err).toMatchObject({
      type: 'Error',
      message: 'auth failed for [REDACTED]: cause [REDACTED]',
    });
    expect(first?.err.stack).toContain('auth failed for [REDACTED]');
    expect(first?.err.stack).toContain('caused by: Error: cause [REDACTED]');
    expect(second?.err).toMatchObject({ type: 'Error' });
    expect(second?.msg).toBe('auth failed for [REDACTED]: cause [REDACTED]');
  });

  it('redacts bindings set later', () => {
    const { destination, lines } = capture();
    const logger = createLogger({ level: 'info', redact, destination }).child({ runId: 'r1' });
    logger.setBindings({ token: SECRET });
    logger.info('later');
    expect(JSON.parse(lines[0]!)).toMatchObject({ runId: 'r1', token: '[REDACTED]' });
  });

  it('does not change the objects the caller logged, and survives cycles', () => {
    const { destination, lines } = capture();
    const logger = createLogger({ level: 'info', redact, destination });
    const fields: Record<string, unknown> = { token: SECRET };
    fields.self = fields;
    logger.info(fields, 'cyclic');
    expect(fields.token).toBe(SECRET);
    expect(JSON.parse(lines[0]!)).toMatchObject({ token: '[REDACTED]', self: '[Circular]' });
  });

  it('pretty-prints synchronously when asked, still redacted', () => {
    const { destination, lines } = capture();
    const logger = createLogger({ level: 'info', pretty: true, redact, destination });
    logger.info({ token: SECRET }, 'hello');
    const output = lines.join('');
    expect(output).toContain('hello');
    expect(output).toContain('[REDACTED]');
    expect(output).not.toContain(SECRET);
    expect(() => JSON.parse(output)).toThrow();
  });
});
