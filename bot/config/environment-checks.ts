// Checks between environment variables: a platform set up halfway, a token pasted into the wrong variable,
// a playground or /metrics reachable from the network without a token, two credentials for the model.
import { maskUrlUserinfo, splitUrlCredentials } from '../../agent/url-userinfo.js';
import { isLoopback } from '../http/loopback-host.js';
import type { SettingsProblem } from './settings-problem.js';
import { GENERATE_TOKEN_HINT } from './token-strength.js';

type Present = Readonly<Record<string, string>>;

const SLACK_TOKEN_KINDS: ReadonlyArray<{ prefix: string; kind: string; belongsIn: string }> = [
  { prefix: 'xoxb-', kind: 'a Slack bot token (xoxb-)', belongsIn: 'SLACK_BOT_TOKEN' },
  { prefix: 'xapp-', kind: 'a Slack app-level token (xapp-)', belongsIn: 'SLACK_APP_TOKEN' },
  {
    prefix: 'xoxp-',
    kind: 'a Slack user token (xoxp-)',
    belongsIn: 'nowhere: opsbot acts as a bot; use the bot token (xoxb-)',
  },
  {
    prefix: 'xoxe',
    kind: 'a Slack configuration or refresh token (xoxe)',
    belongsIn: 'nowhere: use the bot token (xoxb-)',
  },
];

/** What each token-bearing variable should hold, for the "this belongs elsewhere" messages. */
const EXPECTED: Readonly<Record<string, string>> = {
  SLACK_BOT_TOKEN: 'the bot token (xoxb-…) from OAuth & Permissions',
  SLACK_APP_TOKEN: 'an app-level token (xapp-…) with connections:write, from Basic Information',
  SLACK_SIGNING_SECRET: 'the signing secret from Basic Information, not a token',
  DISCORD_TOKEN: 'the bot token from the Discord developer portal (Bot page)',
};

export function checkEnvironmentConsistency(present: Present): SettingsProblem[] {
  return [
    ...checkTokenPlacement(present),
    ...checkSlack(present),
    ...checkDiscord(present),
    ...checkPlayground(present),
    ...checkRole(present),
    ...checkMetrics(present),
    ...checkModelCredentials(present),
  ];
}

/**
 * Credentials in OPENAI_BASE_URL are sent as `Authorization: Basic`, the header OPENAI_API_KEY's
 * `Bearer` would use: with both set, one would silently be dropped.
 */
function checkModelCredentials(present: Present): SettingsProblem[] {
  const baseURL = present.OPENAI_BASE_URL;
  if (baseURL === undefined || present.OPENAI_API_KEY === undefined) return [];
  if (splitUrlCredentials(baseURL).authorization === undefined) return [];
  return [
    {
      key: 'OPENAI_BASE_URL',
      message:
        `carries a user and password (${maskUrlUserinfo(baseURL)}), which opsbot sends as "Authorization: Basic", ` +
        'and OPENAI_API_KEY is set too, which needs the same header as "Bearer". Keep one: the key for a server ' +
        'that takes API keys, or the credentials in the URL for one behind basic auth',
    },
  ];
}

/** A gateway or a worker shares its runs with other processes, which only Redis can do. */
function checkRole(present: Present): SettingsProblem[] {
  const role = present.OPSBOT_ROLE;
  if (role !== 'gateway' && role !== 'worker') return [];
  const store = present.OPSBOT_STORE_URL ?? 'sqlite://./data/opsbot.sqlite';
  if (/^rediss?:\/\//.test(store)) return [];
  return [
    {
      key: 'OPSBOT_ROLE',
      message:
        `is ${role}, which shares runs with other processes through Redis, but OPSBOT_STORE_URL is ` +
        `${store.split('://')[0]}://: SQLite and memory are one machine's by design. Set OPSBOT_STORE_URL=redis://host:6379, ` +
        'or leave OPSBOT_ROLE unset (all) to run everything in this process',
    },
  ];
}

function checkTokenPlacement(present: Present): SettingsProblem[] {
  const problems: SettingsProblem[] = [];
  for (const variable of Object.keys(EXPECTED)) {
    const value = present[variable];
    if (value === undefined) continue;
    const token = SLACK_TOKEN_KINDS.find((kind) => value.startsWith(kind.prefix));
    if (token !== undefined && token.belongsIn !== variable) {
      const where = token.belongsIn.startsWith('nowhere')
        ? `it belongs ${token.belongsIn}`
        : `it belongs in ${token.belongsIn}`;
      problems.push({
        key: variable,
        message: `holds ${token.kind}; ${where}. ${variable} takes ${EXPECTED[variable]}`,
      });
    }
  }
  const discord = present.DISCORD_TOKEN;
  if (discord !== undefined && /^Bot\s/i.test(discord)) {
    problems.push({
      key: 'DISCORD_TOKEN',
      message: 'starts with "Bot "; give the token alone, opsbot adds the prefix',
    });
  }
  return problems;
}

function checkSlack(present: Present): SettingsProblem[] {
  const slackVariables = Object.keys(present).filter((variable) => variable.startsWith('SLACK_'));
  if (slackVariables.length === 0) return [];
  const problems: SettingsProblem[] = [];
  if (present.SLACK_BOT_TOKEN === undefined) {
    problems.push({
      key: 'SLACK_BOT_TOKEN',
      message: `missing; Slack needs the bot token (xoxb-…) because ${slackVariables.join(', ')} ${slackVariables.length === 1 ? 'is' : 'are'} set`,
    });
  }
  if (present.SLACK_SIGNING_SECRET === undefined && present.SLACK_APP_TOKEN === undefined) {
    problems.push({
      key: 'SLACK_SIGNING_SECRET',
      message:
        'missing; Slack needs SLACK_SIGNING_SECRET (events over HTTP at /slack/events) or ' +
        'SLACK_APP_TOKEN (xapp-…, Socket Mode, no public URL needed), and neither is set',
    });
  }
  return problems;
}

function checkDiscord(present: Present): SettingsProblem[] {
  const others = ['DISCORD_APPLICATION_ID', 'DISCORD_API_URL'].filter(
    (variable) => present[variable] !== undefined,
  );
  if (others.length === 0 || present.DISCORD_TOKEN !== undefined) return [];
  return [
    {
      key: 'DISCORD_TOKEN',
      message: `missing; Discord needs the bot token because ${others.join(', ')} ${others.length === 1 ? 'is' : 'are'} set`,
    },
  ];
}

// The playground lets its user pick who they are, admins included: off the loopback it needs a token.
function checkPlayground(present: Present): SettingsProblem[] {
  const host = present.HOST ?? '127.0.0.1';
  const enabled = (present.OPSBOT_PLAYGROUND ?? 'on') === 'on';
  if (!enabled || isLoopback(host) || present.OPSBOT_PLAYGROUND_TOKEN !== undefined) return [];
  return [
    {
      key: 'OPSBOT_PLAYGROUND_TOKEN',
      message:
        `missing; HOST=${host} exposes the playground beyond this machine, and anyone reaching it could act as ` +
        `any local user. Set OPSBOT_PLAYGROUND_TOKEN (${GENERATE_TOKEN_HINT}), or OPSBOT_PLAYGROUND=off`,
    },
  ];
}

// /metrics tells anyone who can read it what the bot is doing; off the loopback it takes the playground's token.
function checkMetrics(present: Present): SettingsProblem[] {
  const host = present.HOST ?? '127.0.0.1';
  if (present.OPSBOT_METRICS !== 'on' || isLoopback(host) || present.OPSBOT_PLAYGROUND_TOKEN !== undefined) {
    return [];
  }
  return [
    {
      key: 'OPSBOT_METRICS',
      message:
        `is on with HOST=${host}, beyond this machine, where /metrics needs a token and none is set. Set ` +
        'OPSBOT_PLAYGROUND_TOKEN (scrapers send it as "Authorization: Bearer <token>"; ' +
        `${GENERATE_TOKEN_HINT}), or OPSBOT_METRICS=off`,
    },
  ];
}
