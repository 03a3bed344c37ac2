// The peer: the same run on the OpenAI Agents SDK (`@openai/agents`), the library a TypeScript user would pick
// for a tool loop, with its Runner over Chat Completions against the same fake model. No persistence, like bare.
import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from '@openai/agents';
import { BUILTIN_TOOLS } from '../../agent/builtin-tools.js';
import { renderPrompt } from '../../agent/prompts.js';
import { ReadStatusInput, readStatus, TOOL_DESCRIPTION, ToolCounter } from '../bench-tool.js';
import { FINAL_ANSWER, TASK, TOOL_NAME, TURNS_PER_RUN } from '../scripted-run.js';
import { API_KEY, type Runner as BenchRunner, BrokenRunError, MODEL } from './runner.js';

export function agentsRunner(baseURL: string): BenchRunner {
  // Its traces would go to OpenAI's servers: off, as a bench on a machine without internet needs.
  setTracingDisabled(true);
  const runner = new Runner({
    modelProvider: new OpenAIProvider({ baseURL, apiKey: API_KEY, useResponses: false }),
    tracingDisabled: true,
  });
  const counter = new ToolCounter();
  const tools = [
    tool({
      name: TOOL_NAME,
      description: TOOL_DESCRIPTION,
      parameters: ReadStatusInput,
      execute: async (input) => JSON.stringify(await readStatus(counter, input)),
    }),
    // The kernel's built-in tools are offered too, so every runner sends the same tool list.
    ...BUILTIN_TOOLS.map((builtin) =>
      tool({
        name: builtin.name,
        description: builtin.description,
        parameters: builtin.input,
        execute: async () => {
          throw new BrokenRunError(`the script never calls ${builtin.name}`);
        },
      }),
    ),
  ];
  const agent = new Agent({
    name: 'opsbot-peer',
    instructions: renderPrompt('system', {
      bot_name: 'opsbot',
      requester: 'bench',
      channel: 'channel bench (thread bench)',
      now: new Date().toISOString(),
    }),
    model: MODEL,
    tools,
  });
  return {
    name: 'agents-sdk',
    tools: counter,
    async runOnce(label) {
      const result = await runner.run(agent, TASK, { maxTurns: TURNS_PER_RUN + 1 });
      const turns = result.rawResponses.length;
      if (result.finalOutput !== FINAL_ANSWER || turns !== TURNS_PER_RUN) {
        throw new BrokenRunError(
          `agents-sdk run ${label}: ended after ${turns} model turns (expected ${TURNS_PER_RUN}) with ${JSON.stringify(result.finalOutput)}`,
        );
      }
      return turns;
    },
    async close() {},
  };
}
