// The kernel's own tools: ask_user suspends the run for a person's answer, finish ends it with an answer.
import { z } from 'zod';
import { defineTool } from './tool.js';

export const ASK_USER = 'ask_user';
export const FINISH = 'finish';

export const AskUserInput = z.object({
  question: z
    .string()
    .min(1)
    .max(1000)
    .describe('One short question for the person who asked, in their words.'),
  choices: z
    .array(z.string().min(1).max(80))
    .max(10)
    .optional()
    .describe('Possible answers, when there is a small fixed set; shown as buttons.'),
});

export const FinishInput = z.object({
  answer: z
    .string()
    .min(1)
    .describe('The final answer for the person, in Markdown: the result first, then evidence.'),
});

const neverExecuted = async () => {
  throw new Error('built-in tools are handled by the kernel, not executed');
};

export const askUserTool = defineTool({
  name: ASK_USER,
  description:
    'Ask the person who made the request one question and wait for the answer. Use when a detail you need ' +
    '(a host, a service, an environment) is missing and no tool can find it. Do not use to ask for permission: ' +
    'risky calls are sent for approval automatically.',
  input: AskUserInput,
  risk: 'read',
  execute: neverExecuted,
});

export const finishTool = defineTool({
  name: FINISH,
  description:
    'End the task with the final answer for the person. Use when the task is done or cannot be done. ' +
    'Do not use while checks you started are still needed.',
  input: FinishInput,
  risk: 'read',
  execute: neverExecuted,
});

export const BUILTIN_TOOLS = [askUserTool, finishTool];
