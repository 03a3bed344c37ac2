// A run asks a person: the question, its answer, asking again, and a question that waited too long.

import type { OutboundMessage } from '../chat-port.js';
import type { PlannedCall, Question, Run, RunIn } from '../run.js';
import type { RunEffect } from '../run-effect.js';
import { waitingForAnswerWords } from '../run-state-words.js';
import { closing, end } from './endings.js';
import type { Next, RunMachineEvent } from './events.js';
import { to, withEvent } from './shape.js';

export function questionMessage(
  run: Run,
  question: Question,
): Extract<OutboundMessage, { kind: 'question' }> {
  return {
    kind: 'question',
    runId: run.id,
    question: question.question,
    choices: question.choices,
    askedOf: run.principal.displayName,
  };
}

export function askQuestion(
  run: Run,
  call: PlannedCall,
  asked: { at: number; question: string; choices: string[]; missingFields: string[]; expiresAt: number },
): Next {
  const question: Question = {
    question: asked.question,
    choices: asked.choices,
    call,
    missingFields: asked.missingFields,
    askedAt: asked.at,
    expiresAt: asked.expiresAt,
  };
  const next = withEvent(to(run, 'waiting_for_user', { question }), {
    type: 'question_asked',
    at: asked.at,
    step: run.step,
    question: asked.question,
    choices: asked.choices,
  });
  return {
    run: next,
    effects: [
      { kind: 'post', message: questionMessage(run, question), slot: 'question' },
      // The status line is shared: it names the person it waits for, never "you".
      { kind: 'status', text: waitingForAnswerWords(run), tone: 'warning' },
      // The run keeps its thread while it waits: another person's reply there queues behind it, in order.
      { kind: 'save' },
      { kind: 'trace', record: { kind: 'question', summary: asked.question, durationMs: 0 } },
    ],
  };
}

export function closeQuestion(
  run: RunIn<'waiting_for_user'>,
  closed: NonNullable<Extract<OutboundMessage, { kind: 'question' }>['answered']>,
): RunEffect[] {
  const { messageId } = run.question;
  if (!messageId) return [];
  return [
    { kind: 'update', messageId, message: { ...questionMessage(run, run.question), answered: closed } },
  ];
}

export function takeAnswer(
  run: RunIn<'waiting_for_user'>,
  event: Extract<RunMachineEvent, { type: 'answer_received' }>,
): Next {
  const { call } = run.question;
  const answered = withEvent(run, {
    type: 'answer_received',
    at: event.at,
    step: run.step,
    answer: event.answer,
    by: event.by.key,
  });
  const shown = closeQuestion(run, { answer: event.answer, by: event.by.displayName, at: event.at });
  const traced: RunEffect = {
    kind: 'trace',
    record: {
      kind: 'answer',
      summary: `${event.by.displayName} answered: ${event.answer}`.slice(0, 200),
      by: event.by.key,
      durationMs: 0,
    },
  };
  const { take } = event;
  if (take.kind === 'ask_again') {
    const retried = { ...call, args: take.args, rawArguments: JSON.stringify(take.args) };
    const waiting = {
      ...answered,
      queue: [retried, ...run.queue.slice(1)],
      askAttempts: run.askAttempts + 1,
    };
    const asked = askQuestion(waiting, retried, {
      at: event.at,
      question: take.question,
      choices: take.choices,
      missingFields: run.question.missingFields,
      expiresAt: event.expiresAt,
    });
    return {
      run: asked.run,
      effects: [...shown, traced, ...asked.effects],
    };
  }
  const queue =
    take.kind === 'tool_result'
      ? run.queue.slice(1)
      : [{ ...call, args: take.args, rawArguments: JSON.stringify(take.args) }, ...run.queue.slice(1)];
  const messages =
    take.kind === 'tool_result'
      ? [
          ...run.messages,
          { role: 'tool' as const, toolCallId: call.id, name: call.name, content: take.content },
        ]
      : run.messages;
  const next = to({ ...answered, queue, messages, askAttempts: 0 }, 'queued', {});
  return {
    run: next,
    effects: [...shown, { kind: 'save' }, { kind: 'enqueue' }, traced],
  };
}

/** What a person sees when their question waited too long. */
export function questionExpiredText(waitedMs: number): string {
  const hours = waitedMs / 3_600_000;
  const waited = hours >= 1 ? `${Math.round(hours * 10) / 10} h` : `${Math.round(waitedMs / 60_000)} min`;
  return `This question expired unanswered after ${waited}. Ask again to start a new run.`;
}

export function questionExpired(run: RunIn<'waiting_for_user'>, at: number): Next {
  const message = questionExpiredText(run.question.expiresAt - run.question.askedAt);
  const closed = closeQuestion(run, { answer: '(expired unanswered)', by: 'nobody', at, closed: 'expired' });
  const ended = end(
    run,
    'expired',
    { expired: { message, at } },
    { type: 'expired', at, step: run.step, message },
  );
  return {
    run: ended,
    effects: [
      ...closed,
      { kind: 'post', message: { kind: 'text', text: message, tone: 'warning' } },
      { kind: 'status', text: 'Expired', tone: 'warning' },
      ...closing('expired', message),
    ],
  };
}
