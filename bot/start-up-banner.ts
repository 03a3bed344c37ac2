// The lines `npm start` prints once everything has started: what runs, where, and with which settings, store,
// model and tools. Pure: serve() says what started, and whoever prints the banner (run-server.ts) prints it.
import type { Environment } from './config/environment.js';

export interface StartUp {
  role: Environment['OPSBOT_ROLE'];
  url: string;
  /** Which program runs (the bundle and when it was built, or the sources), when its entry says. */
  program?: string;
  playground: boolean;
  /** The playground asks for OPSBOT_PLAYGROUND_TOKEN. */
  playgroundToken: boolean;
  metrics: boolean;
  /** A worker's runs at once (`limits.worker_concurrency`), and the platforms it posts through. */
  worker: { concurrency: number; chat: readonly string[] };
  slack?: { mode: 'http' | 'socket'; slashCommand: string };
  /** Connected as this bot user, or standing by while another gateway holds the session. */
  discord?: { botUserId: string; messageContent: boolean } | 'standby';
  /** The settings file, or undefined for the built-in defaults. */
  settingsPath: string | undefined;
  /** The composed bot's own lines, `<label>: <value>` (Opsbot.describe(): store, model, tools). */
  described: readonly string[];
  patrols?: { running: readonly string[]; configured: readonly string[] };
  recovered: { continued: number; outcomeUnknown: number };
  /** The Alertmanager receiver: on with OPSBOT_ALERTS_TOKEN, and where its threads go. */
  alerts?: { on: false } | { on: true; channel?: string; routes: number; investigate: boolean };
}

const field = (label: string, value: string) => `  ${`${label}:`.padEnd(11)}${value}`;

export function startUpBanner(startUp: StartUp): string[] {
  const { url, playground, slack, discord, patrols, recovered } = startUp;
  return [
    headline(startUp),
    field(
      'http',
      `${url} (/healthz, /readyz${startUp.metrics ? ', /metrics' : ''}${playground ? ', playground at /' : ''})`,
    ),
    ...(startUp.program ? [field('program', startUp.program)] : []),
    ...(startUp.playgroundToken && playground
      ? [field('token', 'required; open it once as /?token=<OPSBOT_PLAYGROUND_TOKEN>')]
      : []),
    ...(slack
      ? [
          field(
            'slack',
            `${slack.mode === 'socket' ? 'Socket Mode' : `HTTP events at ${url}/slack/events`} (${slack.slashCommand})`,
          ),
        ]
      : []),
    ...(discord === 'standby'
      ? [
          field(
            'discord',
            'standby: another gateway holds the Discord session (one per bot token); this one takes it over if that one goes',
          ),
        ]
      : []),
    ...(discord && discord !== 'standby'
      ? [
          field(
            'discord',
            `gateway as ${discord.botUserId}, ${
              discord.messageContent
                ? 'with MessageContent (plain thread replies reach opsbot)'
                : 'without MessageContent: mentions, DMs and /ops work; plain thread replies need a mention (set discord.message_content after enabling the intent in the developer portal)'
            }`,
          ),
        ]
      : []),
    field('settings', startUp.settingsPath ?? 'built-in defaults (no opsbot.yaml found)'),
    ...startUp.described.map((line) => {
      const colon = line.indexOf(': ');
      return colon === -1 ? `  ${line}` : field(line.slice(0, colon), line.slice(colon + 2));
    }),
    ...(patrols ? [field('patrols', patrolsLine(patrols))] : []),
    ...(startUp.alerts ? [field('alerts', alertsLine(url, startUp.alerts))] : []),
    ...(recovered.continued + recovered.outcomeUnknown > 0
      ? [
          field(
            'recovered',
            `${recovered.continued} runs continued, ${recovered.outcomeUnknown} marked outcome unknown`,
          ),
        ]
      : []),
  ];
}

function headline({ role, playground, url, worker }: StartUp): string {
  if (role === 'all') {
    return `opsbot is running. ${playground ? `Open ${url}/ in a browser.` : 'The playground is off (OPSBOT_PLAYGROUND=off).'}`;
  }
  const what =
    role === 'gateway'
      ? 'it takes events and enqueues runs; workers step them'
      : `it steps runs from the queue, ${worker.concurrency} at once, and posts through ${
          worker.chat.join(' and ') || 'no chat platform (set SLACK_BOT_TOKEN or DISCORD_TOKEN)'
        }`;
  return `opsbot is running as a ${role} (OPSBOT_ROLE=${role}): ${what}. The playground lives in one process (OPSBOT_ROLE=all).`;
}

function alertsLine(url: string, alerts: NonNullable<StartUp['alerts']>): string {
  if (!alerts.on)
    return 'off (set OPSBOT_ALERTS_TOKEN to take Alertmanager notifications at /alerts/alertmanager)';
  const where = alerts.channel ?? 'no alerts.channel: only groups a route gives a channel are posted';
  const routes = alerts.routes > 0 ? `, ${alerts.routes} route${alerts.routes === 1 ? '' : 's'}` : '';
  return `POST ${url}/alerts/alertmanager → ${where}${routes}; investigations ${alerts.investigate ? 'on' : 'off'}`;
}

function patrolsLine({ running, configured }: NonNullable<StartUp['patrols']>): string {
  const skipped = configured.filter((name) => !running.includes(name));
  return `${running.join(', ') || 'none running'}${
    skipped.length > 0 ? ` (skipped: ${skipped.join(', ')}, whose platform is off)` : ''
  }`;
}
