// Numbered tasks for the multi-process tests: "check the box, task N" sent over 25 channels, a model that answers
// each with its own number, and the answers read back from the fake Slack.
import { type RecordedRequest, text, toolCalls } from '../fakes/openai-server.js';
import { CHANNEL, type ScaleRig, waitFor } from './scale-rig.js';

/** A model that checks the machine once, then answers with the task's own words, so answers can be matched. */
export function answeringModel(request: RecordedRequest) {
  const messages = request.body.messages ?? [];
  const task = String(messages.find((message) => message.role === 'user')?.content ?? '');
  const number = /task (\d+)/.exec(task)?.[1] ?? '?';
  if (!messages.some((message) => message.role === 'tool'))
    return toolCalls([{ name: 'system_stats', arguments: {} }]);
  return text(`Answer for task ${number}.`);
}

/** Slack lets a bot post about once a second per channel, so the tasks are spread over channels, as teams are. */
export const channelOf = (task: number) => `${CHANNEL}${task % 25}`;

export const taskText = (task: number) => `check the box, task ${task}`;

/** Every message the bot has in the task's thread. */
export function botMessages(rig: ScaleRig, task: number, threadTs: string): string[] {
  return rig.slack.thread(channelOf(task), threadTs).map((message) => message.text);
}

/** The task's answers in its thread (one, when all went well). */
export function answers(rig: ScaleRig, task: number, threadTs: string): string[] {
  return botMessages(rig, task, threadTs).filter((line) => /Answer for task \d+\./.test(line));
}

/** Sends tasks 0 … count-1 as mentions in their channels; returns each one's thread. */
export async function sendTasks(rig: ScaleRig, count: number): Promise<string[]> {
  const threads: string[] = [];
  for (let task = 0; task < count; task++)
    threads.push(await rig.mention(taskText(task), { channel: channelOf(task) }));
  return threads;
}

/** Waits until every task has an answer in its thread. */
export async function allAnswered(rig: ScaleRig, threads: string[], timeoutMs: number): Promise<void> {
  const unanswered = () => threads.filter((ts, task) => answers(rig, task, ts).length === 0).length;
  await waitFor(
    () => unanswered() === 0,
    timeoutMs,
    () => `${unanswered()} threads unanswered`,
  );
}
