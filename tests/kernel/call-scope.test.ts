// A tool call's signal and logger are made only when the tool reads them, and end the same way either way.
import { describe, expect, it } from 'vitest';
import { CallScope } from '../../agent/call-scope.js';
import { silentLogger } from '../../agent/logger.js';

describe('CallScope', () => {
  it('aborts a signal the tool read, once, with the first reason', () => {
    const scope = new CallScope(() => silentLogger);
    const { signal } = scope;
    expect(signal.aborted).toBe(false);
    scope.end(() => new Error('timed out after 200 ms'));
    scope.end(() => new Error('call finished'));
    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).message).toBe('timed out after 200 ms');
  });

  it('makes no reason until a signal exists, and a signal read after the end is already aborted', () => {
    const scope = new CallScope(() => silentLogger);
    let made = 0;
    scope.end(() => {
      made += 1;
      return new Error('call finished');
    });
    expect(made).toBe(0);
    expect(scope.signal.aborted).toBe(true);
    expect((scope.signal.reason as Error).message).toBe('call finished');
    expect(made).toBe(1);
  });

  it('makes the logger once, when first read', () => {
    let made = 0;
    const scope = new CallScope(() => {
      made += 1;
      return silentLogger;
    });
    expect(made).toBe(0);
    expect(scope.logger).toBe(scope.logger);
    expect(made).toBe(1);
  });
});
