// Attack: tokens of the right length and no randomness (32 × `x`, 16 × `ab`) passed the start-up check, which
// looked at the length only. Every token the bot checks must now also look random.
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readEnvironment } from '../../bot/config/environment.js';
import { tokenWeakness } from '../../bot/config/token-strength.js';
import { serve } from '../../bot/serve.js';

const LOW_ENTROPY = [
  'x'.repeat(32),
  'ab'.repeat(16),
  'abcd'.repeat(8),
  'password'.repeat(4),
  '0123456789abcdef'.repeat(2),
  'abcdefghijklmnopqrstuvwxyz012345',
  'a'.repeat(16) + 'b'.repeat(16) + 'c'.repeat(8),
  'x'.repeat(64),
];

function environmentError(env: NodeJS.ProcessEnv): string {
  try {
    readEnvironment(env);
  } catch (error) {
    return (error as Error).message;
  }
  return '';
}

describe('token entropy at start-up', () => {
  it('attack: OPSBOT_PLAYGROUND_TOKEN of 32 × x or 16 × ab is accepted because its length is right', async () => {
    for (const weak of LOW_ENTROPY) {
      for (const env of [
        { HOST: '0.0.0.0', OPSBOT_PLAYGROUND_TOKEN: weak },
        { HOST: '127.0.0.1', OPSBOT_PLAYGROUND_TOKEN: weak },
        { HOST: '0.0.0.0', OPSBOT_PLAYGROUND: 'off', OPSBOT_METRICS: 'on', OPSBOT_PLAYGROUND_TOKEN: weak },
      ]) {
        const message = environmentError(env);
        expect(message, weak).toContain('OPSBOT_PLAYGROUND_TOKEN');
        expect(message, weak).toContain('openssl rand -hex 32');
        expect(message, weak).not.toContain(weak.slice(0, 16));
      }
    }
    await expect(
      serve({ env: { PORT: '0', OPSBOT_PLAYGROUND_TOKEN: 'ab'.repeat(16), LOG_LEVEL: 'silent' }, argv: [] }),
    ).rejects.toThrow(/OPSBOT_PLAYGROUND_TOKEN[\s\S]*openssl rand -hex 32/);
  });

  it('says what is wrong with the token without showing it', () => {
    expect(environmentError({ OPSBOT_PLAYGROUND_TOKEN: 'x'.repeat(32) })).toContain(
      'too few different characters',
    );
    expect(environmentError({ OPSBOT_PLAYGROUND_TOKEN: 'password'.repeat(4) })).toContain(
      'repeats a short sequence',
    );
    expect(environmentError({ OPSBOT_PLAYGROUND_TOKEN: 'abcdefghijklmnopqrstuvwxyz012345' })).toContain(
      'runs through consecutive characters',
    );
  });

  it('accepts random tokens of every usual shape', () => {
    for (let round = 0; round < 2_000; round++) {
      for (const token of [
        randomBytes(16).toString('hex'),
        randomBytes(32).toString('hex'),
        randomBytes(24).toString('base64url'),
        randomUUID(),
      ]) {
        expect(tokenWeakness(token), token).toBeUndefined();
      }
    }
    const token = randomBytes(32).toString('hex');
    expect(readEnvironment({ HOST: '0.0.0.0', OPSBOT_PLAYGROUND_TOKEN: token }).OPSBOT_PLAYGROUND_TOKEN).toBe(
      token,
    );
  });
});
