// Graceful shutdown: steps in order on a signal, a deadline naming the hung step, a second signal exiting at once.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Logger } from '../../agent/logger.js';
import { installGracefulShutdown } from '../../bot/shutdown.js';

interface Entry {
  level: string;
  fields: object;
  message: string | undefined;
}

function recordingLogger(entries: Entry[]): Logger {
  const at =
    (level: string) =>
    (fields: object, message?: string): void =>
      void entries.push({ level, fields, message });
  const logger: Logger = {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: () => logger,
  };
  return logger;
}

describe('installGracefulShutdown', () => {
  let uninstall: (() => void) | undefined;
  const entries: Entry[] = [];
  const exit = vi.fn<(code: number) => void>();

  beforeEach(() => {
    entries.length = 0;
    exit.mockReset();
  });
  afterEach(() => {
    uninstall?.();
    uninstall = undefined;
    vi.useRealTimers();
  });

  it('runs the steps in order on SIGTERM, logs a failing step, and exits 0', async () => {
    const order: string[] = [];
    uninstall = installGracefulShutdown({
      logger: recordingLogger(entries),
      exit,
      steps: [
        { name: 'http', stop: async () => void order.push('http') },
        {
          name: 'workers',
          stop: async () => {
            order.push('workers');
            throw new Error('worker stuck');
          },
        },
        { name: 'store', stop: async () => void order.push('store') },
      ],
    });
    process.emit('SIGTERM', 'SIGTERM');
    await vi.waitFor(() => expect(exit).toHaveBeenCalled());
    expect(order).toEqual(['http', 'workers', 'store']);
    expect(exit).toHaveBeenCalledExactlyOnceWith(0);
    const failure = entries.find((entry) => entry.level === 'error');
    expect(failure?.fields).toMatchObject({ step: 'workers', err: expect.any(Error) });
  });

  it('exits 1 naming the hung step when the steps exceed the timeout', async () => {
    vi.useFakeTimers();
    const order: string[] = [];
    uninstall = installGracefulShutdown({
      logger: recordingLogger(entries),
      exit,
      timeoutMs: 5_000,
      steps: [
        { name: 'http', stop: async () => void order.push('http') },
        { name: 'store', stop: () => new Promise<void>(() => {}) },
        { name: 'never', stop: async () => void order.push('never') },
      ],
    });
    process.emit('SIGINT', 'SIGINT');
    await vi.advanceTimersByTimeAsync(4_999);
    expect(exit).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(exit).toHaveBeenCalledExactlyOnceWith(1);
    expect(order).toEqual(['http']);
    const timeout = entries.find((entry) => entry.level === 'error');
    expect(timeout?.fields).toMatchObject({ step: 'store', timeoutMs: 5_000 });
    expect(timeout?.message).toContain('store did not stop within 5 s');
  });

  it('exits at once on a second signal during shutdown', async () => {
    let release: () => void = () => {};
    uninstall = installGracefulShutdown({
      logger: recordingLogger(entries),
      exit,
      steps: [{ name: 'slow', stop: () => new Promise<void>((resolve) => (release = resolve)) }],
    });
    process.emit('SIGTERM', 'SIGTERM');
    await vi.waitFor(() =>
      expect(entries.some((entry) => entry.message?.includes('stopping slow'))).toBe(true),
    );
    process.emit('SIGINT', 'SIGINT');
    expect(exit).toHaveBeenCalledExactlyOnceWith(1);
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(exit).toHaveBeenCalledTimes(1);
  });

  it('handles a real signal delivered to the process', async () => {
    const stopped: string[] = [];
    uninstall = installGracefulShutdown({
      logger: recordingLogger(entries),
      exit,
      signals: ['SIGUSR2'],
      steps: [{ name: 'only', stop: async () => void stopped.push('only') }],
    });
    process.kill(process.pid, 'SIGUSR2');
    await vi.waitFor(() => expect(exit).toHaveBeenCalledWith(0));
    expect(stopped).toEqual(['only']);
  });

  it('stops listening once uninstalled', () => {
    const before = process.listenerCount('SIGTERM');
    const remove = installGracefulShutdown({ logger: recordingLogger(entries), exit, steps: [] });
    expect(process.listenerCount('SIGTERM')).toBe(before + 1);
    remove();
    expect(process.listenerCount('SIGTERM')).toBe(before);
  });
});
