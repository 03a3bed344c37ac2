// Marks a question answered once its run has the answer, so its choice buttons go away however it was answered.
import { errorMessage } from '../../agent/errors.js';
import type { Kernel } from '../../agent/kernel.js';
import type { Logger } from '../../agent/logger.js';
import type { Run } from '../../agent/run.js';
import type { PermissionSettings } from '../config/settings-schema.js';
import type { PlaygroundStore } from './playground-store.js';
import { playgroundPrincipal } from './playground-users.js';

export function trackAnsweredQuestions(
  kernel: Pick<Kernel, 'onRunChange'>,
  store: PlaygroundStore,
  permissions: PermissionSettings,
  logger: Logger,
): () => void {
  // Runs change on every step; only a new answer is worth reading the thread for.
  const handled = new Map<string, number>();
  return kernel.onRunChange((run) => {
    if (run.conversation.platform !== 'playground' || !run.conversation.threadId) return;
    const answer = run.events.findLast((event) => event.type === 'answer_received');
    if (answer?.type !== 'answer_received' || (handled.get(run.id) ?? 0) >= answer.at) return;
    handled.set(run.id, answer.at);
    markAnswered(store, permissions, run, answer).catch((error) =>
      logger.warn(
        { runId: run.id, err: errorMessage(error) },
        'could not mark a playground question answered',
      ),
    );
  });
}

async function markAnswered(
  store: PlaygroundStore,
  permissions: PermissionSettings,
  run: Run,
  answer: { at: number; answer: string; by: string },
): Promise<void> {
  const { channelId, threadId } = run.conversation;
  const [platform, userId] = splitKey(answer.by);
  const by = platform === 'playground' ? playgroundPrincipal(permissions, userId).displayName : userId;
  for (const message of await store.history(channelId)) {
    const content = message.content;
    if (message.threadId !== threadId || message.answered || message.createdAt > answer.at) continue;
    if (content.kind !== 'question' || content.runId !== run.id) continue;
    await store.update(message.id, (current) => ({
      ...current,
      answered: { by, value: answer.answer, at: answer.at },
    }));
  }
}

function splitKey(key: string): [string, string] {
  const colon = key.indexOf(':');
  return colon === -1 ? ['', key] : [key.slice(0, colon), key.slice(colon + 1)];
}
