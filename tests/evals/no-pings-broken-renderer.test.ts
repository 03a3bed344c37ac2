// With the product's ping neutraliser switched off (and Discord's allowed_mentions opened), no_pings fails the
// hostile scenarios with readable reasons: the check reads what the renderers produce and is not vacuous. The
// safety group's ping scenarios are run the same way: each passes with the rules on and fails with them off.
import { describe, expect, it, vi } from 'vitest';
import type { OutboundMessage } from '../../agent/chat-port.js';
import { loadScenarios } from '../../evals/load-scenarios.js';
import { runScenario } from '../../evals/run-scenario.js';
import { SAFETY_SCENARIOS_BY_RULE } from './safety-weakenings.js';

const broken = vi.hoisted(() => ({ neutraliser: false, allowedMentions: false }));

vi.mock('../../bot/chat/neutralize-pings.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../bot/chat/neutralize-pings.js')>();
  return {
    ...real,
    neutralizePings: (text: string) => (broken.neutraliser ? text : real.neutralizePings(text)),
    inert: (text: string) => (broken.neutraliser ? text : real.inert(text)),
  };
});

vi.mock('../../bot/discord/discord-render.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../bot/discord/discord-render.js')>();
  return {
    ...real,
    renderDiscordOutbound: (message: OutboundMessage, options: { now: number }) => {
      const rendered = real.renderDiscordOutbound(message, options);
      if (broken.allowedMentions) {
        for (const payload of rendered.messages) {
          payload.allowedMentions = { parse: ['everyone', 'roles', 'users'] } as never;
        }
      }
      return rendered;
    },
  };
});

const scenario = (name: string) => {
  const found = loadScenarios().find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no scenario ${name}`);
  return found;
};

describe('no_pings against a broken renderer', () => {
  it('fails the Slack scenario once plain @everyone and @here are left live', async () => {
    broken.neutraliser = true;
    try {
      const result = await runScenario(scenario('log-says-ping-everyone'));
      expect(result.passed).toBe(false);
      // In mrkdwn, Slack's own escaping still keeps <!channel> inert; the plain words are what would notify.
      expect(result.reasons).toContain(
        'slack message 3 (result) would ping: "@everyone" in text, "@here" in text, ' +
          '"@everyone" in blocks[0].text.text, "@here" in blocks[0].text.text',
      );
      // Button labels are not escaped, only neutralised: without that, the choice shows a raw <!channel>.
      expect(result.reasons).toContainEqual(
        expect.stringMatching(
          /^slack message 2 \(question\) would ping: .*"<!channel>" in blocks\[2\]\.elements\[0\]/,
        ),
      );
    } finally {
      broken.neutraliser = false;
    }
    expect((await runScenario(scenario('log-says-ping-everyone'))).reasons).toEqual([]);
  });

  it('fails the Discord scenario only when allowed_mentions lets the mentions through', async () => {
    broken.neutraliser = true;
    try {
      // Text left live but allowed_mentions empty: Discord notifies nobody, so this still passes.
      expect((await runScenario(scenario('page-says-ping-everyone'))).reasons).toEqual([]);
      broken.allowedMentions = true;
      const result = await runScenario(scenario('page-says-ping-everyone'));
      expect(result.reasons).toEqual([
        expect.stringMatching(
          /^discord message \d+ \(approval\) would ping: "@everyone" in embeds\[0\]\.description \(allowed_mentions lets everyone through\), "@here" in /,
        ),
      ]);
      expect(result.reasons[0]).toContain(
        '"<@&123456>" in embeds[0].description (allowed_mentions lets roles through)',
      );
    } finally {
      broken.neutraliser = false;
      broken.allowedMentions = false;
    }
  });
});

describe('the safety group with ping neutralizing off', () => {
  const pingScenarios = loadScenarios().filter(
    (candidate) =>
      candidate.group === 'safety' &&
      (SAFETY_SCENARIOS_BY_RULE.pings as readonly string[]).includes(candidate.name),
  );

  it('runs every ping scenario', () => {
    expect(pingScenarios.map((candidate) => candidate.name).sort()).toEqual(
      [...SAFETY_SCENARIOS_BY_RULE.pings].sort(),
    );
  });

  it.each(pingScenarios.map((candidate) => [candidate.name, candidate] as const))(
    '%s passes with the rules on and fails with them off',
    async (_name, candidate) => {
      expect((await runScenario(candidate)).reasons).toEqual([]);
      broken.neutraliser = true;
      broken.allowedMentions = true;
      try {
        const result = await runScenario(candidate);
        expect(result.passed).toBe(false);
        expect(result.reasons).toContainEqual(
          expect.stringMatching(
            /^(slack|discord) message \d+ \(\w+\) would ping: "(@here|@channel|@everyone)"/,
          ),
        );
      } finally {
        broken.neutraliser = false;
        broken.allowedMentions = false;
      }
    },
  );
});
