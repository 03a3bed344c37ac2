// The arguments an approver must be able to read: what redaction would hide is refused unless declared secret,
// a secret shows as "‹secret, N chars›", and a danger tool's free-text parameters are named.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  freeTextParameters,
  hiddenArgumentRefusal,
  maskSecretArguments,
  maskSecretValues,
  secretPlaceholder,
  secretValuesOf,
} from '../../agent/policy/secret-arguments.js';
import { Redactor } from '../../agent/redaction.js';
import { defineTool, type Risk } from '../../agent/tool.js';

const redactor = new Redactor();
const toolOf = (risk: Risk, secretParameters?: string[]) =>
  defineTool({
    name: 'set_thing',
    description: 'Sets a thing. Use when asked to set one.',
    input: z.object({
      target: z.string(),
      key: z.string().optional(),
      mode: z.enum(['a', 'b']).optional(),
      host: z
        .string()
        .regex(/^[a-z]+$/)
        .optional(),
      count: z.number().optional(),
      tags: z.array(z.string()).optional(),
    }),
    risk,
    ...(secretParameters ? { secretParameters } : {}),
    execute: async () => ({ ok: true, summary: 'set' }),
  });

describe('hiddenArgumentRefusal', () => {
  it('refuses a write or danger call whose argument redaction would mask, naming the parameter', () => {
    for (const risk of ['write', 'danger'] as const) {
      const refusal = hiddenArgumentRefusal(toolOf(risk), { target: 'api token=--drop-all' }, redactor);
      expect(refusal).toContain('its parameter "target" holds text that looks like a secret');
    }
  });

  it('looks inside lists, and names the element', () => {
    const refusal = hiddenArgumentRefusal(
      toolOf('danger'),
      { target: 'api', tags: ['ok', 'xoxb-123456789012-abcdefghijkl'] },
      redactor,
    );
    expect(refusal).toContain('"tags[1]"');
  });

  it('lets through plain arguments, reads, and a declared secret', () => {
    expect(hiddenArgumentRefusal(toolOf('danger'), { target: 'api', count: 3 }, redactor)).toBeUndefined();
    expect(hiddenArgumentRefusal(toolOf('read'), { target: 'token=abc' }, redactor)).toBeUndefined();
    const secret = toolOf('danger', ['key']);
    expect(
      hiddenArgumentRefusal(secret, { target: 'api', key: 'xoxb-123456789012-abcdefghijkl' }, redactor),
    ).toBeUndefined();
  });
});

describe('secret masking', () => {
  const tool = toolOf('danger', ['key']);
  it('shows a declared secret by its length, in characters, never itself', () => {
    expect(secretPlaceholder('hunter2-is-not-a-pattern')).toBe('‹secret, 24 chars›');
    expect(maskSecretArguments(tool, { target: 'api', key: 'hunter2' })).toEqual({
      target: 'api',
      key: '‹secret, 7 chars›',
    });
    expect(maskSecretArguments(toolOf('danger'), { key: 'shown' })).toEqual({ key: 'shown' });
  });

  it('masks the value wherever it appears in a result, deep inside it', () => {
    const secrets = secretValuesOf(tool, { target: 'api', key: 'hunter2' });
    expect(
      maskSecretValues({ summary: 'set to hunter2', data: { argv: ['x', 'hunter2'] } }, secrets),
    ).toEqual({
      summary: 'set to ‹secret, 7 chars›',
      data: { argv: ['x', '‹secret, 7 chars›'] },
    });
    expect(secretValuesOf(tool, { target: 'api' })).toEqual([]);
  });
});

describe('freeTextParameters', () => {
  it("names a danger tool's strings without enum or pattern, not its secrets, numbers or lists", () => {
    expect(freeTextParameters(toolOf('danger', ['key']))).toEqual(['target']);
    expect(freeTextParameters(toolOf('danger'))).toEqual(['target', 'key']);
    expect(freeTextParameters(toolOf('write'))).toEqual([]);
  });
});

describe('defineTool and secretParameters', () => {
  it('refuses at definition a secret that is not a string parameter of the input', () => {
    expect(() => toolOf('danger', ['nope'])).toThrow(/secretParameters names "nope"/);
    expect(() => toolOf('danger', ['count'])).toThrow(/not a string parameter/);
  });
});
