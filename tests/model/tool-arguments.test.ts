// parseToolArguments forgives common model slips in JSON but never accepts a non-object.
import { describe, expect, it } from 'vitest';
import { parseToolArguments } from '../../agent/model/tool-arguments.js';

function args(raw: string) {
  const result = parseToolArguments(raw);
  if (!result.ok) throw new Error(`expected ok, got: ${result.error}`);
  return result.args;
}

function error(raw: string) {
  const result = parseToolArguments(raw);
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.args)}`);
  return result.error;
}

describe('parseToolArguments', () => {
  it('reads a plain JSON object', () => {
    expect(args('{"service": "api", "lines": 50}')).toEqual({ service: 'api', lines: 50 });
  });

  it('treats an empty or blank string as no arguments', () => {
    expect(args('')).toEqual({});
    expect(args('  \n ')).toEqual({});
  });

  it('unwraps code fences, with or without a language', () => {
    expect(args('```json\n{"a": 1}\n```')).toEqual({ a: 1 });
    expect(args('```\n{"a": 1}\n```')).toEqual({ a: 1 });
    expect(args('  ```JSON {"a": 1} ```  ')).toEqual({ a: 1 });
    expect(args('```json\n```')).toEqual({});
  });

  it('drops trailing commas before } and ]', () => {
    expect(args('{"a": [1, 2, ], "b": {"c": 3,},}')).toEqual({ a: [1, 2], b: { c: 3 } });
    expect(args('{"a": 1,\n  }')).toEqual({ a: 1 });
  });

  it('keeps commas inside strings, even ones that look trailing', () => {
    expect(args('{"query": "a, }", "b": 1,}')).toEqual({ query: 'a, }', b: 1 });
    expect(args('{"text": "say \\"x,]\\" now",}')).toEqual({ text: 'say "x,]" now' });
    expect(args('{"list": "1,2,3"}')).toEqual({ list: '1,2,3' });
  });

  it('rejects arrays, strings, numbers and null, asking for an object', () => {
    for (const raw of ['[1, 2]', '"restart"', '42', 'null', 'true']) {
      const message = error(raw);
      expect(message).toMatch(/must be a JSON object/);
      expect(message).toMatch(/one valid JSON object/);
    }
    expect(error('[1,2]')).toMatch(/an array/);
  });

  it('rejects garbage with the parse problem and a request for a single JSON object', () => {
    const message = error('service=api lines=50');
    expect(message).toMatch(/not valid JSON/);
    expect(message).toMatch(/Send the arguments again as one valid JSON object/);
    expect(error('{"a": 1')).toMatch(/not valid JSON/);
  });

  it('does not repair commas between values', () => {
    expect(error('{"a": 1,, "b": 2}')).toMatch(/not valid JSON/);
  });

  it('takes the one JSON object out of prose around it, fenced or not', () => {
    expect(args('Here are the args: {"service": "api"}')).toEqual({ service: 'api' });
    expect(args('Sure! {"service": "api", "lines": 50,} should do.')).toEqual({ service: 'api', lines: 50 });
    expect(args('Arguments:\n```json\n{"query": "a } b", "n": 1}\n```\nThat is all.')).toEqual({
      query: 'a } b',
      n: 1,
    });
    expect(args('Use {service} like this: {"service": "api"}')).toEqual({ service: 'api' });
    expect(args('{"service": "api"} (again: {"service": "api"})')).toEqual({ service: 'api' });
  });

  it('keeps the outer object of prose, not the objects nested in it', () => {
    expect(args('The args are {"filter": {"level": "error"}, "limit": 5}.')).toEqual({
      filter: { level: 'error' },
      limit: 5,
    });
  });

  it('rejects prose with two or more different objects, saying so', () => {
    const message = error('Either {"service": "api"} or {"service": "worker"}');
    expect(message).toMatch(/2 different JSON objects/);
    expect(message).toMatch(/one valid JSON object/);
  });

  it('rejects prose whose JSON is broken, with the parse problem', () => {
    expect(error('Here are the args: {"service": "api"')).toMatch(/not valid JSON/);
    expect(error('Here are the args: {service: api}')).toMatch(/not valid JSON/);
  });
});
