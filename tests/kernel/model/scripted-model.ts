// The model of the model test: each task carries its own script of turns in its text, and the fake OpenAI
// server plays it back turn by turn, with call ids that are new at every request, as a real model's are.
import {
  type FakeAnswer,
  type FakeChatMessage,
  type FakeResponder,
  text,
  toolCalls,
} from '../../fakes/openai-server.js';

/**
 * One model turn: read logs; ask the person; a danger restart or a write note (both need an approval); a read
 * and a restart in one turn; a restart missing its service (asked of the person first); the same restart twice.
 */
export const STEPS = [
  'read',
  'ask',
  'restart',
  'note',
  'read+restart',
  'missing',
  'restart+restart',
] as const;
export type Step = (typeof STEPS)[number];

/** The task text for a script: the responder reads the script back from the run's first user message. */
export function taskText(task: number, steps: readonly Step[]): string {
  return `task ${task}: ${steps.join(' ') || '(answer at once)'}`;
}

function scriptOf(messages: FakeChatMessage[]): { task: string; steps: Step[] } | undefined {
  const first = messages.find((message) => message.role === 'user');
  const match = /^task (\d+): (.*)$/.exec(first?.content ?? '');
  if (!match) return undefined;
  const steps = match[2]!
    .split(' ')
    .filter((step): step is Step => (STEPS as readonly string[]).includes(step));
  return { task: match[1]!, steps };
}

type Call = { name: string; arguments: Record<string, unknown> };

/** Each call carries its own id in its arguments, so a tool can record which call it ran. */
function turn(step: Step, id: (index: number) => string): Call[] {
  switch (step) {
    case 'read':
      return [{ name: 'read_logs', arguments: { service: 'api', ref: id(0) } }];
    case 'ask':
      return [{ name: 'ask_user', arguments: { question: 'Which service?', choices: ['api', 'worker'] } }];
    case 'restart':
      return [{ name: 'restart_service', arguments: { service: 'api', change: id(0) } }];
    case 'note':
      return [{ name: 'write_note', arguments: { text: id(0) } }];
    case 'read+restart':
      return [
        { name: 'read_logs', arguments: { service: 'worker', ref: id(0) } },
        { name: 'restart_service', arguments: { service: 'worker', change: id(1) } },
      ];
    case 'missing':
      return [{ name: 'restart_service', arguments: { change: id(0) } }];
    case 'restart+restart': {
      const same = { service: 'api', change: id(0) };
      return [
        { name: 'restart_service', arguments: same },
        { name: 'restart_service', arguments: same },
      ];
    }
  }
}

export function scriptedResponder(): FakeResponder {
  return (request, index): FakeAnswer => {
    const messages = request.body.messages ?? [];
    const script = scriptOf(messages);
    if (!script) return text('I could not find my script.');
    const turns = messages.filter((message) => message.role === 'assistant').length;
    const step = script.steps[turns];
    if (!step) return text(`task ${script.task} done`);
    const calls = turn(step, (position) => `r${index}c${position}`);
    return toolCalls(
      calls.map((call, position) => ({ ...call, id: `r${index}c${position}` })),
      { content: `step ${turns + 1} of task ${script.task}: ${step}` },
    );
  };
}
