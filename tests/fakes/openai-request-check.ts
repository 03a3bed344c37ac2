// Checks a chat completion request the way a real OpenAI-compatible API does before it answers: every tool call
// answered by its tool message, roles in order, and each offered tool's schema. The fake OpenAI server answers a
// request that fails with a 400 and the API's error body, so a kernel that sends a broken conversation fails its
// tests as it would fail in production, instead of being answered by a script that does not read the request.
import type { FakeChatMessage, FakeRequestBody } from './openai-answers.js';

/** What the API says about a request it refuses: the message and the parameter at fault. */
export interface RequestProblem {
  message: string;
  param: string;
}

/** OpenAI's rule for function names. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The first problem a real API would refuse this request for, or undefined when it is well formed. */
export function requestProblem(body: FakeRequestBody): RequestProblem | undefined {
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return { message: "'messages' must be a non-empty array.", param: 'messages' };
  }
  return messagesProblem(body.messages) ?? toolsProblem(body.tools);
}

function messagesProblem(messages: FakeChatMessage[]): RequestProblem | undefined {
  let seenOther = false;
  for (const [index, message] of messages.entries()) {
    const param = `messages.[${index}]`;
    if (!isObject(message) || typeof message.role !== 'string' || !ROLES.has(message.role)) {
      return { message: `Invalid value for 'role' at ${param}.`, param: `${param}.role` };
    }
    if (message.role === 'system' || message.role === 'developer') {
      if (seenOther) {
        return {
          message: `A '${message.role}' message must come before every other message; ${param} comes after one.`,
          param: `${param}.role`,
        };
      }
      continue;
    }
    if (!seenOther && message.role !== 'user') {
      return {
        message: `The first message after the system prompt must be a 'user' message; ${param} is '${message.role}'.`,
        param: `${param}.role`,
      };
    }
    seenOther = true;
    const problem =
      message.role === 'assistant'
        ? toolCallsAnswered(messages, index)
        : message.role === 'tool'
          ? toolMessageAnswers(messages, index)
          : undefined;
    if (problem) return problem;
  }
  return undefined;
}

/** The tool messages right after `index` (before the next message of any other role). */
function toolMessagesAfter(messages: FakeChatMessage[], index: number): FakeChatMessage[] {
  const following: FakeChatMessage[] = [];
  for (const message of messages.slice(index + 1)) {
    if (message.role !== 'tool') break;
    following.push(message);
  }
  return following;
}

function toolCallsAnswered(messages: FakeChatMessage[], index: number): RequestProblem | undefined {
  const calls = messages[index]?.tool_calls ?? [];
  const answered = new Set(toolMessagesAfter(messages, index).map((message) => message.tool_call_id));
  for (const call of calls) {
    if (!answered.has(call.id)) {
      return {
        message:
          "An assistant message with 'tool_calls' must be followed by tool messages responding to each " +
          `'tool_call_id'. The following tool_call_ids did not have response messages: ${call.id}`,
        param: `messages.[${index}].tool_calls`,
      };
    }
  }
  return undefined;
}

function toolMessageAnswers(messages: FakeChatMessage[], index: number): RequestProblem | undefined {
  const id = messages[index]?.tool_call_id;
  let before = index - 1;
  while (before >= 0 && messages[before]?.role === 'tool') before--;
  const call = messages[before];
  const preceded = call?.role === 'assistant' && (call.tool_calls ?? []).some((each) => each.id === id);
  if (preceded) return undefined;
  return {
    message:
      "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'; " +
      `messages.[${index}] answers '${String(id)}', which no preceding message asked for.`,
    param: `messages.[${index}].role`,
  };
}

function toolsProblem(tools: FakeRequestBody['tools']): RequestProblem | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) return { message: "'tools' must be an array.", param: 'tools' };
  const names = new Set<string>();
  for (const [index, tool] of tools.entries()) {
    const param = `tools[${index}].function`;
    if (!isObject(tool) || tool.type !== 'function' || !isObject(tool.function)) {
      return {
        message: `Invalid tool at tools[${index}]: expected a function tool.`,
        param: `tools[${index}]`,
      };
    }
    const { name, parameters } = tool.function;
    if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
      return {
        message: `Invalid '${param}.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]{1,64}$'.`,
        param: `${param}.name`,
      };
    }
    if (names.has(name))
      return { message: `Duplicate function name '${name}' in tools.`, param: `${param}.name` };
    names.add(name);
    const schemaProblem = parametersProblem(parameters);
    if (schemaProblem) {
      return {
        message: `Invalid schema for function '${name}': ${schemaProblem}`,
        param: `${param}.parameters`,
      };
    }
  }
  return undefined;
}

function parametersProblem(parameters: unknown): string | undefined {
  if (parameters === undefined) return undefined;
  if (!isObject(parameters)) return 'the schema must be a JSON Schema object.';
  if (parameters.type !== 'object') {
    return `schema must be a JSON Schema of 'type: "object"', got 'type: "${String(parameters.type)}"'.`;
  }
  if (!isObject(parameters.properties)) return "an object schema must have 'properties', an object.";
  const required = parameters.required ?? [];
  if (!Array.isArray(required)) return "'required' must be an array.";
  const missing = required.find((key) => !Object.hasOwn(parameters.properties as object, String(key)));
  if (missing !== undefined) return `'required' names '${String(missing)}', which is not in 'properties'.`;
  return undefined;
}
