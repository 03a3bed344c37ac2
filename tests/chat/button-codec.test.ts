// The button codec: opaque ids in, the same ids out, and nothing else accepted, however it is dressed up.
import { describe, expect, it } from 'vitest';
import {
  type ButtonIntent,
  decodeButton,
  encodeButton,
  MAX_BUTTON_ID_CHARS,
} from '../../bot/chat/button-codec.js';
import { actionFromButton, ChatEventSchema } from '../../bot/chat/chat-event.js';

describe('button codec', () => {
  it('round-trips approve, deny and answer, in the format Slack buttons already carry', () => {
    const intents: ButtonIntent[] = [
      { action: 'approve', approvalId: 'apv_0123456789abcdefghijkl' },
      { action: 'deny', approvalId: 'apv_a-b' },
      { action: 'answer', runId: 'run_1', choice: 0 },
      { action: 'answer', runId: 'run_f10d65620ca2384e', choice: 999 },
    ];
    for (const intent of intents) expect(decodeButton(encodeButton(intent))).toEqual(intent);
    expect(encodeButton({ action: 'deny', approvalId: 'apv_a-b' })).toBe('deny:apv_a-b');
    expect(encodeButton({ action: 'answer', runId: 'run_1', choice: 2 })).toBe('answer:run_1:2');
  });

  it('round-trips approving for a while, with and without a pattern, within the 100 characters', () => {
    const approvalId = 'apv_a5SgSt_run_2ad8feb9e71eb4ec';
    const once: ButtonIntent = { action: 'approve', approvalId, grant: { for: '1h' } };
    const widened: ButtonIntent = {
      action: 'approve',
      approvalId,
      grant: { for: '15m', pattern: 'app-services-in-eu-west1' },
    };
    expect(encodeButton(once)).toBe(`grant:${approvalId}:1h`);
    expect(encodeButton(widened)).toBe(`grant:${approvalId}:15m:app-services-in-eu-west1`);
    for (const intent of [once, widened]) {
      expect(decodeButton(encodeButton(intent))).toEqual(intent);
      expect(encodeButton(intent).length).toBeLessThanOrEqual(MAX_BUTTON_ID_CHARS);
    }
    expect(actionFromButton(widened)).toEqual({
      action: 'approve',
      target: approvalId,
      grant: { for: '15m', pattern: 'app-services-in-eu-west1' },
    });
    for (const bad of [
      `grant:${approvalId}`,
      `grant:${approvalId}:0h`,
      `grant:${approvalId}:1y`,
      `grant:${approvalId}:1h:Upper`,
      `grant:${approvalId}:1h:a:b`,
      `grant:${approvalId}:1h:${'p'.repeat(25)}`,
    ])
      expect(decodeButton(bad)).toBeUndefined();
  });

  it('accepts only the values opsbot puts on its buttons', () => {
    expect(decodeButton('deny:apv_a-b')).toEqual({ action: 'deny', approvalId: 'apv_a-b' });
    expect(decodeButton('answer:run_1:2')).toEqual({ action: 'answer', runId: 'run_1', choice: 2 });
    for (const bad of [
      'approve:',
      'approve:a:b',
      'answer:run_1',
      'answer:run_1:x',
      'execute:rm',
      'approve:a b',
      undefined,
    ])
      expect(decodeButton(bad)).toBeUndefined();
  });

  it('refuses hostile and garbled values', () => {
    const hostile: unknown[] = [
      null,
      42,
      {},
      ['approve', 'apv_1'],
      { action: 'approve', approvalId: 'apv_1' },
      '',
      ':',
      'APPROVE:apv_1',
      ' approve:apv_1',
      'approve:apv_1 ',
      'approve:apv_1\n',
      'approve:apv_1\u0000',
      'approve:аpv_1', // a Cyrillic а
      'approve:apv_1\u2060',
      'approve:../../etc/passwd',
      'approve:apv_1;rm -rf /',
      'approve:<!channel>',
      'approve:{"$gt":""}',
      `approve:${'a'.repeat(MAX_BUTTON_ID_CHARS)}`,
      'x'.repeat(10_000),
      'answer:run_1:-1',
      'answer:run_1:+1',
      'answer:run_1:1.0',
      'answer:run_1:1e2',
      'answer:run_1:0x1',
      'answer:run_1:01',
      'answer:run_1:1000',
      'answer:run_1:NaN',
      'answer:run_1:Infinity',
      'answer:run_1: 1',
      'answer::1',
      'answer:run_1:1:extra',
      'deny:apv_1:0',
      '__proto__:apv_1',
      'constructor:apv_1',
    ];
    for (const value of hostile) expect(decodeButton(value), String(value)).toBeUndefined();
  });

  it('never makes an id over 100 characters, nor one from ids that could not round-trip', () => {
    expect(() => encodeButton({ action: 'approve', approvalId: 'a'.repeat(91) })).toThrow();
    expect(() => encodeButton({ action: 'answer', runId: 'r'.repeat(90), choice: 100 })).toThrow(/100/);
    expect(() => encodeButton({ action: 'approve', approvalId: 'apv:1' })).toThrow();
    expect(() => encodeButton({ action: 'answer', runId: 'run_1', choice: -1 })).toThrow();
    expect(() => encodeButton({ action: 'answer', runId: 'run_1', choice: 1.5 })).toThrow();
    const longest = encodeButton({ action: 'answer', runId: 'r'.repeat(88), choice: 999 });
    expect(longest.length).toBeLessThanOrEqual(MAX_BUTTON_ID_CHARS);
    expect(decodeButton(longest)).toEqual({ action: 'answer', runId: 'r'.repeat(88), choice: 999 });
  });

  it('turns a decoded button into the same ChatEvent action on every platform', () => {
    const base = {
      kind: 'action' as const,
      eventId: 'e1',
      principal: { platform: 'slack' as const, userId: 'U1', displayName: 'Alice', roles: [] },
      conversation: { platform: 'slack' as const, channelId: 'C1' },
    };
    const answer = { ...base, ...actionFromButton({ action: 'answer', runId: 'run_1', choice: 3 }) };
    expect(answer).toMatchObject({ action: 'answer', target: 'run_1', choice: 3 });
    expect(ChatEventSchema.safeParse(answer).success).toBe(true);
    const approve = { ...base, ...actionFromButton({ action: 'approve', approvalId: 'apv_1' }) };
    expect(ChatEventSchema.safeParse(approve).success).toBe(true);
    // An answer needs its choice or value, and approve/deny carry neither.
    expect(ChatEventSchema.safeParse({ ...approve, action: 'answer' }).success).toBe(false);
    expect(ChatEventSchema.safeParse({ ...approve, choice: 1 }).success).toBe(false);
    expect(ChatEventSchema.safeParse({ ...answer, value: 'prod' }).success).toBe(false);
  });

  it("round-trips an alert group's Silence with its length, which its ChatEvent must carry", () => {
    const id = encodeButton({ action: 'alert_silence', groupId: 'grp_1', silence: '4h' });
    expect(id).toBe('asil:grp_1:4h');
    expect(decodeButton(id)).toEqual({ action: 'alert_silence', groupId: 'grp_1', silence: '4h' });
    for (const bad of ['asil:grp_1:1d', 'asil:grp_1:30m', 'asil:grp_1', 'asil::1h']) {
      expect(decodeButton(bad), bad).toBeUndefined();
    }
    const base = {
      kind: 'action' as const,
      eventId: 'e1',
      principal: { platform: 'slack' as const, userId: 'U1', displayName: 'Alice', roles: [] },
      conversation: { platform: 'slack' as const, channelId: 'C1' },
    };
    const silence = { ...base, ...actionFromButton(decodeButton(id)!) };
    expect(silence).toMatchObject({ action: 'alert_silence', target: 'grp_1', value: '4h' });
    expect(ChatEventSchema.safeParse(silence).success).toBe(true);
    expect(ChatEventSchema.safeParse({ ...silence, value: undefined }).success).toBe(false);
  });
});
