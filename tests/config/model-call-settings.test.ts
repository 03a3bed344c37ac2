// The model's summary model, output caps and rate limit in opsbot.yaml: defaults from the schema, and bad values
// rejected all at once with the key, the line and what was expected.
import { describe, expect, it } from 'vitest';
import { parseSettings } from '../../bot/config/load-settings.js';
import { InvalidSettingsError } from '../../bot/config/settings-problem.js';
import { SettingsSchema } from '../../bot/config/settings-schema.js';

function problemsOf(text: string): InvalidSettingsError['problems'] {
  try {
    parseSettings(text, 'opsbot.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidSettingsError);
    return (error as InvalidSettingsError).problems;
  }
  throw new Error('expected the settings to be rejected');
}

describe('model call settings', () => {
  it('default to caps per kind of call, a rate limit that never slows a normal run, and no summary model', () => {
    const { model } = SettingsSchema.parse({});
    expect(model.summary).toBeUndefined();
    expect(model.max_output_tokens).toEqual({ tool_loop: 4096, context_summary: 1024, patrol_summary: 256 });
    expect(model.output_cap_field).toBe('max_tokens');
    expect(model.rate_limit).toEqual({ requests_per_second: 10, burst: 20, max_in_flight: 32 });
    expect(model.rate_limit.max_in_flight).toBeGreaterThanOrEqual(
      SettingsSchema.parse({}).limits.worker_concurrency,
    );
  });

  it('take a summary model, caps and a rate limit, keeping the defaults of the keys not given', () => {
    const { model } = parseSettings(
      [
        'model:',
        '  summary: gpt-4.1-nano',
        '  max_output_tokens: { patrol_summary: 128 }',
        '  rate_limit: { requests_per_second: 0.5, max_in_flight: 2 }',
      ].join('\n'),
      'opsbot.yaml',
    );
    expect(model.summary).toBe('gpt-4.1-nano');
    expect(model.max_output_tokens).toEqual({ tool_loop: 4096, context_summary: 1024, patrol_summary: 128 });
    expect(model.rate_limit).toEqual({ requests_per_second: 0.5, burst: 20, max_in_flight: 2 });
  });

  it('reject bad values, each naming its key and line', () => {
    const problems = problemsOf(
      [
        'model:',
        "  summary: ''",
        '  max_output_tokens:',
        '    tool_loop: 1.5',
        '    patrol_summary: 4',
        '    answer: 100',
        '  output_cap_field: max_output',
        '  rate_limit:',
        '    requests_per_second: 0',
        '    burst: many',
        '    max_in_flight: 0',
      ].join('\n'),
    );
    expect(problems.map(({ key, line, message }) => ({ key, line, message }))).toEqual([
      { key: 'model.summary', line: 2, message: 'expected at least 1 character, found 0 ("")' },
      { key: 'model.max_output_tokens.tool_loop', line: 4, message: 'expected a whole number, found 1.5' },
      {
        key: 'model.max_output_tokens.patrol_summary',
        line: 5,
        message: 'expected a number at least 16, found 4',
      },
      {
        key: 'model.max_output_tokens.answer',
        line: 6,
        message: 'unknown key; the keys allowed here are tool_loop, context_summary, patrol_summary',
      },
      {
        key: 'model.output_cap_field',
        line: 7,
        message: 'expected one of "max_tokens", "max_completion_tokens", found "max_output"',
      },
      {
        key: 'model.rate_limit.requests_per_second',
        line: 9,
        message: 'expected a number at least 0.1, found 0',
      },
      { key: 'model.rate_limit.burst', line: 10, message: 'expected a number, found "many"' },
      { key: 'model.rate_limit.max_in_flight', line: 11, message: 'expected a number at least 1, found 0' },
    ]);
  });
});
