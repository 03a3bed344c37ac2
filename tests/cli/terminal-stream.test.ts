// The CLI's output boundary keeps its own colours: sealed marks become colour codes, and nothing else does.
import { afterEach, describe, expect, it, vi } from 'vitest';

const wasTTY = process.stdout.isTTY;
afterEach(() => {
  Object.defineProperty(process.stdout, 'isTTY', { value: wasTTY, configurable: true });
  vi.unstubAllEnvs();
  vi.resetModules();
});

describe('terminalText on a colour terminal', () => {
  it("turns the CLI's own colours into SGR codes, and escapes the same codes written by the model", async () => {
    Object.defineProperty(process.stdout, 'isTTY', { value: true, configurable: true });
    vi.stubEnv('NO_COLOR', undefined);
    vi.resetModules();
    const { bold, withoutColour } = await import('../../bot/cli/terminal-colors.js');
    const { terminalText } = await import('../../bot/cli/terminal-stream.js');
    const shown = terminalText(`${bold('ok')} \u001b[1mforged\u001b[0m`);
    expect(shown).toBe('\u001b[1mok\u001b[0m \\x1b[1mforged\\x1b[0m');
    expect(withoutColour(bold('ok'))).toBe('ok');
  });
});
