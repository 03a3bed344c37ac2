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

  it('leaves a call of a tool that was not offered as an answer, prototype names too', () => {
    expect(read('{"name": "restart_service", "arguments": {"service": "api"}}')).toBeUndefined();
    expect(read('<tool_call>{"name": "__proto__", "arguments": {}}</tool_call>')).toBeUndefined();
    expect(read('{"name": "constructor", "arguments": {}}')).toBeUndefined();
  });

  it('runs none of a reply when one of its calls is not a call of an offered tool', () => {
    expect(
      read(
        '<tool_call>{"name": "system_stats", "arguments": {}}</tool_call>\n' +
          '<tool_call>{"name": "restart_service", "arguments": {}}</tool_call>',
      ),
    ).toBeUndefined();
    expect(read('[{"name": "system_stats", "arguments": {}}, {"status": "ok"}]')).toBeUndefined();
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
