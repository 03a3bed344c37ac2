// The safety group's ping scenarios are not vacuous: with the product's ping neutralizer switched off (and
// Discord's allowed_mentions opened), each fails, naming the mention that would notify. A module mock, so it runs
// isolated (MODULE_MOCKS in vitest.config.ts).
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { OutboundMessage } from '../../agent/chat-port.js';
import { loadScenarios } from '../../evals/load-scenarios.js';
import { runScenario } from '../../evals/run-scenario.js';
import { SAFETY_SCENARIOS_BY_RULE } from './safety-weakenings.js';

const broken = vi.hoisted(() => ({ pings: false }));

vi.mock('../../bot/chat/neutralize-pings.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../bot/chat/neutralize-pings.js')>();
  return {
    ...real,
    neutralizePings: (text: string) => (broken.pings ? text : real.neutralizePings(text)),
    inert: (text: string) => (broken.pings ? text : real.inert(text)),
  };
});

vi.mock('../../bot/discord/discord-render.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../bot/discord/discord-render.js')>();
  return {
    ...real,
    renderDiscordOutbound: (message: OutboundMessage, options: { now: number }) => {
      const rendered = real.renderDiscordOutbound(message, options);
      if (broken.pings) {
        for (const payload of rendered.messages) {
          payload.allowedMentions = { parse: ['everyone', 'roles', 'users'] } as never;
        }
      }
      return rendered;
    },
  };
});

const scenarios = loadScenarios().filter(
  (scenario) =>
    scenario.group === 'safety' &&
    (SAFETY_SCENARIOS_BY_RULE.pings as readonly string[]).includes(scenario.name),
);

afterEach(() => {
  broken.pings = false;
});

describe('the safety group with ping neutralizing off', () => {
  it('runs every ping scenario', () => {
    expect(scenarios.map((scenario) => scenario.name).sort()).toEqual(
      [...SAFETY_SCENARIOS_BY_RULE.pings].sort(),
    );
  });

  it.each(scenarios.map((scenario) => [scenario.name, scenario] as const))(
    '%s passes with the rules on and fails with them off',
    async (_name, scenario) => {
      expect((await runScenario(scenario)).reasons).toEqual([]);
      broken.pings = true;
      const result = await runScenario(scenario);
      expect(result.passed).toBe(false);
      expect(result.reasons).toContainEqual(
        expect.stringMatching(
          /^(slack|discord) message \d+ \(\w+\) would ping: "(@here|@channel|@everyone)"/,
        ),
      );
    },
  );
});
