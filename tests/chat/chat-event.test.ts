// The normalized ChatEvent: what an action may carry.
import { describe, expect, it } from 'vitest';
import { ChatEventSchema } from '../../bot/chat/chat-event.js';

const action = {
  kind: 'action',
  eventId: 'act_1',
  principal: { platform: 'playground', userId: 'bob', displayName: 'Bob', roles: ['admin'], groups: [] },
  conversation: { platform: 'playground', channelId: 'ops', threadId: 't1' },
  target: 'apr_1',
};

describe('action events', () => {
  it('lets a denial carry a reason, and nothing else', () => {
    const denied = ChatEventSchema.parse({ ...action, action: 'deny', reason: '  not during the freeze ' });
    expect(denied).toMatchObject({ action: 'deny', reason: 'not during the freeze' });
    expect(ChatEventSchema.safeParse({ ...action, action: 'deny' }).success).toBe(true);
    expect(ChatEventSchema.safeParse({ ...action, action: 'approve', reason: 'why not' }).success).toBe(
      false,
    );
    expect(ChatEventSchema.safeParse({ ...action, action: 'deny', reason: 'x'.repeat(501) }).success).toBe(
      false,
    );
  });
});
