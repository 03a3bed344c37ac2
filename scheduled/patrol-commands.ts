// `patrol list|show|run|pause|resume|snooze|history`, from chat (`/ops patrol …`) and the CLI. Replies are text
// for the person who asked.
import { durationSetting } from '../agent/duration-text.js';
import { parseDuration } from '../agent/policy/duration.js';
import type { Principal } from '../agent/principal.js';
import { readableUtc } from '../agent/utc-time.js';
import type { CheckState } from './check-state.js';
import { statusWord } from './check-state.js';
import { PATROL_WIDE } from './patrol-records.js';
import { nextWords, type PatrolSteering, type PatrolSteeringDeps, type Steered } from './patrol-steering.js';

export const PATROL_USAGE = [
  'Patrol commands:',
  '• `patrol list`: every patrol, its schedule, channel and state',
  '• `patrol show <name>`: each check, its state and since when',
  '• `patrol run <name>`: run it now (posts only if something changed)',
  '• `patrol pause <name> [for 2h]`, `patrol resume <name>`',
  '• `patrol snooze <name>[/<check>] 4h`: post nothing for it that long',
  '• `patrol history <name>`: its latest runs',
].join('\n');

export class PatrolCommands {
  constructor(
    private readonly deps: PatrolSteeringDeps,
    private readonly steering: PatrolSteering,
  ) {}

  async run(args: string, principal: Principal): Promise<string> {
    return (await this.answer(args, principal)).message;
  }

  /** The reply, and whether the command did what it asked: false for a refusal, a usage error or a steer not made. */
  async answer(args: string, principal: Principal): Promise<Steered> {
    const [verb = '', target = '', ...rest] = args.trim().split(/\s+/).filter(Boolean);
    const name = target.split('/')[0] ?? '';
    const read = async (text: Promise<string>): Promise<Steered> => ({ ok: true, message: await text });
    const usage = (message: string): Steered => ({ ok: false, message });
    switch (verb.toLowerCase()) {
      case '':
      case 'list':
        return read(this.list());
      case 'show':
        return name ? this.known(name, () => this.show(name)) : usage('Which patrol? `patrol show <name>`');
      case 'history':
        return name
          ? this.known(name, () => this.history(name))
          : usage('Which patrol? `patrol history <name>`');
      case 'run':
        return name ? this.steering.run(principal, name) : usage('Which patrol? `patrol run <name>`');
      case 'pause': {
        if (!name) return usage('Which patrol? `patrol pause <name> [for 2h]`');
        const length = rest[0]?.toLowerCase() === 'for' ? rest[1] : rest[0];
        const ms = length === undefined ? undefined : duration(length);
        if (length !== undefined && ms === undefined) return usage(notADuration(length));
        return this.steering.pause(principal, name, ms);
      }
      case 'resume':
        return name ? this.steering.resume(principal, name) : usage('Which patrol? `patrol resume <name>`');
      case 'snooze': {
        const length = rest[0]?.toLowerCase() === 'for' ? rest[1] : rest[0];
        if (!name || length === undefined) return usage('Usage: `patrol snooze <name>[/<check>] 4h`');
        const ms = duration(length);
        if (ms === undefined) return usage(notADuration(length));
        const check = target.includes('/') ? target.slice(target.indexOf('/') + 1) : undefined;
        return this.steering.snooze(principal, name, check ? [check] : 'patrol', ms);
      }
      default:
        return usage(`"${verb}" is not a patrol command.\n${PATROL_USAGE}`);
    }
  }

  private async known(name: string, text: () => Promise<string>): Promise<Steered> {
    if (!this.deps.all[name]) return { ok: false, message: this.steering.unknown(name) };
    return { ok: true, message: await text() };
  }

  private async list(): Promise<string> {
    const names = Object.keys(this.deps.all);
    if (names.length === 0) return 'No patrols are configured. docs/patrols.md shows how to add one.';
    const lines = await Promise.all(
      names.map(async (name) => {
        const patrol = this.deps.all[name]!;
        const [states, control] = await Promise.all([
          this.deps.repository.states(name),
          this.deps.repository.control(name),
        ]);
        const failing = Object.values(states).filter(isActive).length;
        const state = !this.deps.active()[name]
          ? `not running here (${patrol.channel.platform} is off)`
          : !patrol.enabled
            ? 'disabled in the settings (enabled: false)'
            : control.paused
              ? `paused by ${control.paused.by}${control.paused.until ? ` until ${readableUtc(control.paused.until)}` : ''}`
              : failing > 0
                ? `${failing} of ${patrol.checks.length} checks failing`
                : `${patrol.checks.length} checks, none failing`;
        return `• ${name}: \`${patrol.schedule}\` (${patrol.timezone}) → ${patrol.channel.platform}:${patrol.channel.channelId} · ${state} · next ${control.paused || !patrol.enabled ? 'none while paused' : nextWords(this.deps.active()[name] ? this.deps.nextRunAt(name) : undefined)}`;
      }),
    );
    return ['Patrols:', ...lines].join('\n');
  }

  private async show(name: string): Promise<string> {
    const patrol = this.deps.all[name];
    if (!patrol) return this.steering.unknown(name);
    const [states, control] = await Promise.all([
      this.deps.repository.states(name),
      this.deps.repository.control(name),
    ]);
    const wide = control.snoozes[PATROL_WIDE];
    const lines = patrol.checks.map((check) => {
      const state = states[check.id];
      const snooze = control.snoozes[check.id];
      return `• \`${check.id}\` (${check.tool}, ${check.severity}): ${state ? `${statusWord(state.machine)} since ${readableUtc(state.machine.since)}${state.flappingSince ? ' (flapping)' : ''}: ${state.detail}` : 'not run yet'}${snooze ? ` · snoozed until ${readableUtc(snooze.until)}` : ''}`;
    });
    return [
      `Patrol ${name}: \`${patrol.schedule}\` (${patrol.timezone}) → ${patrol.channel.platform}:${patrol.channel.channelId}`,
      `raise after ${patrol.raise_after}, clear after ${patrol.clear_after}${patrol.remind_every ? `, remind every ${durationSetting(patrol.remind_every)}` : ''}${patrol.quiet_hours ? `, quiet ${patrol.quiet_hours.from}–${patrol.quiet_hours.to} ${patrol.quiet_hours.timezone} below ${patrol.quiet_hours.min_severity}` : ''}`,
      ...(control.paused
        ? [
            `Paused by ${control.paused.by}${control.paused.until ? ` until ${readableUtc(control.paused.until)}` : ''}`,
          ]
        : []),
      ...(wide ? [`Snoozed until ${readableUtc(wide.until)} by ${wide.by}`] : []),
      ...lines,
      `Next run: ${control.paused || !patrol.enabled ? 'none while paused' : nextWords(this.deps.active()[name] ? this.deps.nextRunAt(name) : undefined)}`,
    ].join('\n');
  }

  private async history(name: string): Promise<string> {
    if (!this.deps.all[name]) return this.steering.unknown(name);
    const entries = (await this.deps.repository.history(name)).slice(-15).reverse();
    if (entries.length === 0) return `Patrol ${name} has not run yet (history is kept for a bounded time).`;
    const lines = entries.map((entry) => {
      const label = entry.late ? ' (late)' : entry.manual ? ' (run by hand)' : '';
      const result = entry.problem
        ? `⚠ ${entry.problem}`
        : entry.failing.length === 0
          ? `✔ ${entry.passed} passed`
          : `✘ ${entry.failing.map((f) => `${f.checkId} ${f.level}`).join(', ')}; ${entry.passed} passed`;
      const posted = entry.posted.length > 0 ? ` · posted ${entry.posted.join(', ')}` : '';
      return `• ${readableUtc(entry.at)}${label}: ${result}${posted}${entry.runId ? ` · ${entry.runId}` : ''}`;
    });
    return [`Latest runs of ${name}, newest first:`, ...lines].join('\n');
  }
}

function isActive(state: CheckState): boolean {
  const status = state.machine.status;
  return status === 'firing' || status === 'error' || status === 'resolving';
}

function duration(text: string): number | undefined {
  return /^[1-9]\d*(m|h|d)$/.test(text) ? parseDuration(text) : undefined;
}

function notADuration(text: string): string {
  return `"${text}" is not a length I understand: use minutes, hours or days, such as 30m, 2h or 1d.`;
}
