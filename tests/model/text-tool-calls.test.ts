// readTextToolCalls turns tool calls written as text into calls, only for the tools offered, and leaves answers be.
import { describe, expect, it } from 'vitest';
import { readTextToolCalls } from '../../agent/model/text-tool-calls.js';

const offered = [{ name: 'http_check' }, { name: 'system_stats' }, { name: 'finish' }];
const read = (content: string | null, step = 3) => readTextToolCalls(content, offered, step);

describe('readTextToolCalls', () => {
  it('reads a bare JSON object that is the whole reply', () => {
    expect(read(' {"name": "http_check", "arguments": {"url": "http://a.example/"}}\n')).toEqual({
      calls: [{ id: 'text_call_3_1', name: 'http_check', arguments: '{"url":"http://a.example/"}' }],
      prose: null,
    });
  });

  it('reads <tool_call> blocks (Hermes, Qwen), one call each, and keeps the prose around them', () => {
    const result = read(
      'Checking both.\n<tool_call>\n{"name": "http_check", "arguments": {"url": "http://a.example/"}}\n</tool_call>\n' +
        '<tool_call>{"name": "system_stats", "arguments": {}}</tool_call>',
      7,
    );
    expect(result).toEqual({
      calls: [
        { id: 'text_call_7_1', name: 'http_check', arguments: '{"url":"http://a.example/"}' },
        { id: 'text_call_7_2', name: 'system_stats', arguments: '{}' },
      ],
      prose: 'Checking both.',
    });
  });

  it('reads a last <tool_call> block whose closing tag was cut off', () => {
    expect(read('<tool_call>\n{"name": "system_stats", "arguments": {}}')?.calls).toEqual([
      { id: 'text_call_3_1', name: 'system_stats', arguments: '{}' },
    ]);
  });

  it('reads a fenced json block, with prose around it', () => {
    const result = read(
      'I will look at the box.\n```json\n{"name": "system_stats", "arguments": {}}\n```\nBack soon.',
    );
    expect(result).toEqual({
      calls: [{ id: 'text_call_3_1', name: 'system_stats', arguments: '{}' }],
      prose: 'I will look at the box.\n \nBack soon.',
    });
  });

  it('reads several calls from an array, bare or fenced', () => {
    const array =
      '[{"name": "system_stats", "arguments": {}}, {"name": "http_check", "arguments": {"url": "http://b/"}}]';
    for (const content of [array, `\`\`\`json\n${array}\n\`\`\``]) {
      expect(read(content)?.calls.map((call) => [call.id, call.name])).toEqual([
        ['text_call_3_1', 'system_stats'],
        ['text_call_3_2', 'http_check'],
      ]);
    }
  });

  it('accepts "parameters" for "arguments", and a "type": "function" (Llama style)', () => {
    expect(
      read('{"type": "function", "name": "http_check", "parameters": {"url": "http://a/"}}')?.calls,
    ).toEqual([{ id: 'text_call_3_1', name: 'http_check', arguments: '{"url":"http://a/"}' }]);
  });

  it('passes arguments given as a JSON string on as they are written', () => {
    expect(read('{"name": "http_check", "arguments": "{\\"url\\": \\"http://a/\\"}"}')?.calls).toEqual([
      { id: 'text_call_3_1', name: 'http_check', arguments: '{"url": "http://a/"}' },
    ]);
  });

  it('leaves prose that mentions JSON, or holds a call inside a sentence, as an answer', () => {
    expect(read('The API answered {"status": "ok"} in 12 ms.')).toBeUndefined();
    expect(
      read('You could run {"name": "http_check", "arguments": {"url": "http://a/"}} yourself.'),
    ).toBeUndefined();
    expect(read('```json\n{"status": "ok", "latency_ms": 12}\n```')).toBeUndefined();
    expect(read('All good, nothing to report.')).toBeUndefined();
    expect(read('')).toBeUndefined();
    expect(read(null)).toBeUndefined();
  });

  it('passes on a marked call of a tool not offered, for the policy to refuse; bare or json-fenced, an answer', () => {
    const marked = [
      '<tool_call>{"name": "restart_service", "arguments": {"service": "api"}}</tool_call>',
      '[TOOL_CALLS] [{"name": "restart_service", "arguments": {"service": "api"}}]',
      '[TOOL_CALLS]restart_service[ARGS]{"service": "api"}',
      '```tool_call\n{"name": "restart_service", "arguments": {"service": "api"}}\n```',
    ];
    for (const content of marked) {
      expect(read(content)?.calls, content).toEqual([
        { id: 'text_call_3_1', name: 'restart_service', arguments: '{"service":"api"}' },
      ]);
    }
    for (const name of ['__proto__', 'constructor', 'hasOwnProperty']) {
      expect(read(`<tool_call>{"name": "${name}", "arguments": {}}</tool_call>`)?.calls).toEqual([
        { id: 'text_call_3_1', name, arguments: '{}' },
      ]);
    }
    // Unmarked, the same call may be data: it stays an answer, as it did.
    expect(read('{"name": "restart_service", "arguments": {"service": "api"}}')).toBeUndefined();
    expect(read('{"name": "constructor", "arguments": {}}')).toBeUndefined();
    expect(read('```json\n{"name": "restart_service", "arguments": {}}\n```')).toBeUndefined();
    expect(read('```\n[{"name": "__proto__", "arguments": {}}]\n```')).toBeUndefined();
    // A name no tool can have (the API's rule) is not a call, nor is any call when no tools are offered (a last turn).
    expect(read('<tool_call>{"name": "rm -rf /", "arguments": {}}</tool_call>')).toBeUndefined();
    expect(read(`<tool_call>{"name": "${'x'.repeat(65)}", "arguments": {}}</tool_call>`)).toBeUndefined();
    expect(read('<tool_call>{"name": "", "arguments": {}}</tool_call>')).toBeUndefined();
    expect(read('[TOOL_CALLS]a.b[ARGS]{}')).toBeUndefined();
    expect(readTextToolCalls(marked[0]!, [], 3)).toBeUndefined();
    expect(readTextToolCalls('[TOOL_CALLS]http_check[ARGS]{}', [], 3)).toBeUndefined();
  });

  it('runs each call of a reply whose blocks are all calls, offered or not; none when one block is not a call', () => {
    expect(
      read(
        '<tool_call>{"name": "system_stats", "arguments": {}}</tool_call>\n' +
          '<tool_call>{"name": "restart_service", "arguments": {}}</tool_call>',
      )?.calls.map((call) => call.name),
    ).toEqual(['system_stats', 'restart_service']);
    expect(
      read(
        '<tool_call>{"name": "system_stats", "arguments": {}}</tool_call>\n<tool_call>{"status": "ok"}</tool_call>',
      ),
    ).toBeUndefined();
    expect(read('[{"name": "system_stats", "arguments": {}}, {"status": "ok"}]')).toBeUndefined();
    expect(read('[{"name": "system_stats", "arguments": {}}, {"name": "nope", "arguments": {}}]')).toBe(
      undefined,
    );
  });

  it('reads Mistral [TOOL_CALLS] followed by a JSON array, with the prose before it', () => {
    expect(
      read(
        'Checking.[TOOL_CALLS] [{"name": "http_check", "arguments": {"url": "http://a/"}}, ' +
          '{"name": "system_stats", "arguments": {}, "id": "a1b2c3d4e"}]',
        4,
      ),
    ).toEqual({
      calls: [
        { id: 'text_call_4_1', name: 'http_check', arguments: '{"url":"http://a/"}' },
        { id: 'text_call_4_2', name: 'system_stats', arguments: '{}' },
      ],
      prose: 'Checking.',
    });
    expect(read('[TOOL_CALLS]{"name": "system_stats", "arguments": {}}')?.calls).toEqual([
      { id: 'text_call_3_1', name: 'system_stats', arguments: '{}' },
    ]);
  });

  it('reads the newer Mistral name[ARGS]{…} form, one call per [TOOL_CALLS], with or without [CALL_ID]', () => {
    expect(
      read('[TOOL_CALLS]http_check[ARGS]{"url": "http://a/"}[TOOL_CALLS]system_stats[ARGS]{}')?.calls,
    ).toEqual([
      { id: 'text_call_3_1', name: 'http_check', arguments: '{"url":"http://a/"}' },
      { id: 'text_call_3_2', name: 'system_stats', arguments: '{}' },
    ]);
    expect(read('[TOOL_CALLS]http_check[CALL_ID]a1b2c3d4e[ARGS]{"url": "http://a/"}')?.calls).toEqual([
      { id: 'text_call_3_1', name: 'http_check', arguments: '{"url":"http://a/"}' },
    ]);
    expect(read('[TOOL_CALLS]system_stats{}')?.calls).toEqual([
      { id: 'text_call_3_1', name: 'system_stats', arguments: '{}' },
    ]);
    // A [TOOL_CALLS] reply that is not all calls is an answer.
    expect(read('[TOOL_CALLS] [{"name": "system_stats", "arguments": {}')).toBeUndefined();
    expect(read('[TOOL_CALLS]http_check[ARGS]{"url": ')).toBeUndefined();
    expect(read('[TOOL_CALLS]http_check[ARGS]["http://a/"]')).toBeUndefined();
    expect(read('[TOOL_CALLS] I will check the api.')).toBeUndefined();
    expect(read('[TOOL_CALLS]system_stats[ARGS]{}[TOOL_CALLS] [{"status": "ok"}]')).toBeUndefined();
  });

  it('reads a marked call with no arguments as a call with none; a bare or json-fenced one stays an answer', () => {
    for (const content of [
      '<tool_call>{"name": "system_stats"}</tool_call>',
      '[TOOL_CALLS] [{"name": "system_stats"}]',
      '```tool_call\n{"name": "system_stats"}\n```',
    ]) {
      expect(read(content)?.calls, content).toEqual([
        { id: 'text_call_3_1', name: 'system_stats', arguments: '{}' },
      ]);
    }
    expect(read('```json\n{"name": "system_stats"}\n```')).toBeUndefined();
    expect(read('<tool_call>{"name": "system_stats", "arguments": null}</tool_call>')).toBeUndefined();
  });

  it('leaves malformed JSON as an answer', () => {
    expect(read('<tool_call>{"name": "system_stats", "arguments": {</tool_call>')).toBeUndefined();
    expect(read('{"name": "system_stats", "arguments": {}')).toBeUndefined();
    expect(read('```json\n{"name": "system_stats" "arguments": {}}\n```')).toBeUndefined();
  });

  it('does not read objects with other keys, no arguments, or arguments that are not an object or string', () => {
    expect(read('{"name": "system_stats", "arguments": {}, "note": "x"}')).toBeUndefined();
    expect(read('{"name": "system_stats"}')).toBeUndefined();
    expect(read('{"name": "http_check", "arguments": ["http://a/"]}')).toBeUndefined();
    expect(read('{"name": "http_check", "arguments": {}, "parameters": {}}')).toBeUndefined();
    expect(read('{"type": "tool", "name": "system_stats", "arguments": {}}')).toBeUndefined();
    expect(read('[]')).toBeUndefined();
  });
});
