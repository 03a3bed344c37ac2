// `npm run eval -- compare a.json b.json` over two crafted results files, and what a results file keeps about
// its run: the model, the prompt versions and the engine (`--engine`).
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { evalCommand } from '../../evals/eval-command.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'opsbot-eval-compare-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function run(argv: string[]) {
  const lines: string[] = [];
  const code = await evalCommand(
    argv,
    {},
    {
      out: (line) => lines.push(line),
      err: (line) => lines.push(line),
      progress: () => {},
    },
  );
  return { code, output: lines.join('\n') };
}

const result = (
  group: string,
  name: string,
  passed: boolean,
  figures: Partial<Record<string, number>> = {},
) => ({
  name,
  group,
  mode: 'live',
  passed,
  reasons: passed ? [] : [`${name} went wrong`],
  status: passed ? 'finished' : 'failed',
  steps: 2,
  modelCalls: 2,
  toolCalls: 1,
  promptTokens: 1000,
  completionTokens: 100,
  wallMs: 4000,
  sent: [],
  ...figures,
});

function writeReport(file: string, meta: Record<string, unknown>, results: unknown[]): string {
  const path = join(dir, file);
  writeFileSync(path, JSON.stringify({ at: '2026-12-01T10:00:00.000Z', totals: {}, ...meta, results }));
  return path;
}

describe('npm run eval -- compare', () => {
  it('prints pass rate and averages per group and overall, and the scenarios that changed', async () => {
    const a = writeReport(
      'a.json',
      {
        mode: 'live qwen2.5:7b',
        model: 'qwen2.5:7b',
        engine: 'react',
        prompts: { system: 'system.v1.md@aaaaaaaaaaaa' },
      },
      [
        result('diagnosis', 'api-feels-slow', true, { steps: 3, toolCalls: 2, wallMs: 5000 }),
        result('diagnosis', 'payments-api-up', true),
        result('safety', 'exfil-env-dump', false),
        result('safety', 'key-in-http-body', true),
        { ...result('budgets', 'never-wraps-up', false), skipped: 'scripts a model that never wraps up' },
      ],
    );
    const b = writeReport(
      'b.json',
      {
        mode: 'live qwen2.5:7b',
        model: 'qwen2.5:7b',
        engine: 'plan',
        prompts: { system: 'system.v2.md@bbbbbbbbbbbb' },
      },
      [
        result('diagnosis', 'api-feels-slow', false, {
          steps: 1,
          modelCalls: 1,
          toolCalls: 0,
          promptTokens: 600,
          wallMs: 2000,
        }),
        result('diagnosis', 'payments-api-up', true),
        result('safety', 'exfil-env-dump', true),
        result('safety', 'key-in-http-body', true),
        result('safety', 'slack-log-says-here', true),
      ],
    );
    const { code, output } = await run(['compare', a, b]);
    expect(code).toBe(0);
    expect(output).toBe(
      [
        `a ${a}: live qwen2.5:7b at 2026-12-01T10:00:00.000Z; model qwen2.5:7b, engine react, system prompt system.v1.md@aaaaaaaaaaaa`,
        `b ${b}: live qwen2.5:7b at 2026-12-01T10:00:00.000Z; model qwen2.5:7b, engine plan, system prompt system.v2.md@bbbbbbbbbbbb`,
        '',
        'group                   pass rate  avg steps  avg model calls  avg tool calls   avg prompt  avg completion  avg wall ms',
        '---------  ----------------------  ---------  ---------------  --------------  -----------  --------------  -----------',
        'diagnosis  2/2 (100%) → 1/2 (50%)  2.5 → 1.5          2 → 1.5       1.5 → 0.5   1000 → 800       100 → 100  4500 → 3000',
        'safety     1/2 (50%) → 3/3 (100%)      2 → 2            2 → 2           1 → 1  1000 → 1000       100 → 100  4000 → 4000',
        '---------  ----------------------  ---------  ---------------  --------------  -----------  --------------  -----------',
        'overall     3/4 (75%) → 4/5 (80%)  2.3 → 1.8          2 → 1.8       1.3 → 0.8   1000 → 920       100 → 100  4250 → 3600',
        '',
        'changed (a → b):',
        '  diagnosis/api-feels-slow: pass → FAIL (api-feels-slow went wrong)',
        '  safety/exfil-env-dump: FAIL → pass',
        '  safety/slack-log-says-here: absent → pass',
      ].join('\n'),
    );
  });

  it('shows repeats as rates, reads an older file without the run’s details, and names a file that is not a report', async () => {
    const a = writeReport('a.json', { mode: 'scripted' }, [
      result('diagnosis', 'x', true),
      result('diagnosis', 'x', true),
    ]);
    const b = writeReport('b.json', { mode: 'scripted' }, [
      result('diagnosis', 'x', true),
      result('diagnosis', 'x', false),
    ]);
    const { output } = await run(['compare', a, b]);
    expect(output).toContain('model unknown, engine unknown, system prompt unknown');
    expect(output).toContain('  diagnosis/x: 2/2 → 1/2 (x went wrong)');
    writeFileSync(join(dir, 'bad.json'), '{"results": 3}');
    const bad = await run(['compare', a, join(dir, 'bad.json')]);
    expect(bad.code).toBe(2);
    expect(bad.output).toContain(`${join(dir, 'bad.json')} is not an eval results file`);
    expect((await run(['compare', a])).code).toBe(2);
  });
});

describe('a results file', () => {
  it('keeps the model, the prompt versions and the engine runs started with (--engine)', async () => {
    const { code } = await run([
      '--engine',
      'react',
      '--filter',
      'payments-api-up',
      '--results',
      dir,
      '--cassettes',
      join(dir, 'c'),
    ]);
    expect(code).toBe(0);
    const [file] = readdirSync(dir).filter((name) => name.endsWith('.json'));
    const report = JSON.parse(readFileSync(join(dir, file!), 'utf8'));
    expect(report).toMatchObject({ mode: 'scripted', model: 'fake-model (scripted)', engine: 'react' });
    expect(report.prompts.system).toMatch(/^system\.v1\.md@[0-9a-f]{12}$/);
    expect(report.results[0].engine).toBe('react');
  });

  it('refuses an engine the kernel does not have, listing those it has', async () => {
    const { code, output } = await run(['--engine', 'guesswork']);
    expect(code).toBe(2);
    expect(output).toContain('--engine must be one of react, plan, command, not "guesswork"');
  });
});
