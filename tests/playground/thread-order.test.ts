// The order of a thread's replies: each run's messages together, under what started the run.
import { describe, expect, it } from 'vitest';
import { isReply, type OrderableMessage, orderReplies } from '../../bot/playground/public/thread-order.js';

type Named = OrderableMessage & { name: string };
let seq = 0;
const bot = (
  name: string,
  runId: string | undefined,
  kind: string,
  createdAt: number,
  updatedAt = createdAt,
  extra = {},
): Named => ({
  name,
  author: { kind: 'bot' },
  content: { kind, ...(runId ? { runId } : {}), ...extra },
  createdAt,
  updatedAt,
  seq: ++seq,
});
const person = (name: string, createdAt: number): Named => ({
  name,
  author: { kind: 'user', userId: 'alice' },
  content: { kind: 'user_text' },
  createdAt,
  updatedAt: createdAt,
  seq: ++seq,
});
const names = (messages: Named[]) => orderReplies(messages).map((message) => message.name);

describe('thread order', () => {
  it("gives another person's reply to a waiting question a place of its own, with the run queued behind", () => {
    const asked = (name: string, who: string, createdAt: number): Named => ({
      ...person(name, createdAt),
      author: { kind: 'user', userId: who.toLowerCase(), displayName: who },
    });
    const thread = [
      bot('status 1', 'run_1', 'status', 10, 60),
      bot('question', 'run_1', 'question', 11, 50, { askedOf: 'Alice', answered: { at: 50 } }),
      asked('bob replies', 'Bob', 20),
      bot('queued behind', 'run_2', 'text', 21),
      asked('alice answers', 'Alice', 40),
      bot('answer 1', 'run_1', 'result', 55),
      bot('answer 2', 'run_2', 'result', 80),
      bot('status 2', 'run_2', 'status', 70, 90),
    ];
    expect(names(thread)).toEqual([
      'question',
      'alice answers',
      'answer 1',
      'status 1',
      'bob replies',
      'queued behind',
      'answer 2',
      'status 2',
    ]);
  });

  it('keeps a run that answers after a second question above that question', () => {
    const thread = [
      bot('status 1', 'run_1', 'status', 10, 60),
      person('second question', 20),
      bot('queued note', undefined, 'text', 21),
      bot('answer 1', 'run_1', 'text', 50),
      bot('status 2', 'run_2', 'status', 70, 90),
      bot('answer 2', 'run_2', 'result', 80),
    ];
    expect(names(thread.reverse())).toEqual([
      'answer 1',
      'status 1',
      'second question',
      'queued note',
      'answer 2',
      'status 2',
    ]);
  });

  it("keeps a person's answer to a run's question inside that run", () => {
    const thread = [
      bot('status', 'run_1', 'status', 10, 60),
      bot('question', 'run_1', 'question', 20, 20, { answered: { at: 31 } }),
      person('answer', 30),
      bot('result', 'run_1', 'result', 40),
      person('later remark', 45),
    ];
    expect(names(thread)).toEqual(['question', 'answer', 'result', 'status', 'later remark']);
  });

  it('counts every message but the status line as a reply', () => {
    expect(isReply(bot('status', 'run_1', 'status', 1))).toBe(false);
    expect(isReply(bot('answer', 'run_1', 'result', 1))).toBe(true);
    expect(isReply(person('question', 1))).toBe(true);
  });
});
