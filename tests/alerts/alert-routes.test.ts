// Routes: the first match wins, match_re is anchored, and a missing label matches as the empty string.
import { describe, expect, it } from 'vitest';
import { destinationFor } from '../../bot/alerts/alert-routes.js';
import { AlertSettingsSchema } from '../../bot/alerts/alert-settings.js';

const settings = AlertSettingsSchema.parse({
  channel: 'slack:C0DEFAULT',
  routes: [
    { match_re: { alertname: 'Watchdog|InfoInhibitor' }, drop: true },
    { match: { severity: 'critical' }, channel: 'discord:123456789012345678' },
    { match: { severity: 'critical', team: 'db' }, channel: 'slack:C0NEVER' },
    { match_re: { team: '' }, channel: 'playground:no-team' },
  ],
});

describe('alert routes', () => {
  it('drop what the first route drops', () => {
    expect(destinationFor(settings, { alertname: 'Watchdog' })).toEqual({ kind: 'drop', route: 0 });
    // Anchored: a name that only contains a dropped one is not dropped.
    expect(destinationFor(settings, { alertname: 'WatchdogFailed', team: 'x' })).toMatchObject({
      kind: 'post',
      channel: { platform: 'slack', channelId: 'C0DEFAULT' },
    });
  });

  it('take the first match, not the most specific', () => {
    expect(
      destinationFor(settings, { alertname: 'DiskFull', severity: 'critical', team: 'db' }),
    ).toMatchObject({
      kind: 'post',
      route: 1,
      channel: { platform: 'discord', channelId: '123456789012345678' },
    });
  });

  it('match a missing label as the empty string, as Alertmanager does', () => {
    expect(destinationFor(settings, { alertname: 'DiskFull' })).toMatchObject({
      route: 3,
      channel: { platform: 'playground', channelId: 'no-team' },
    });
  });

  it('post nowhere without a channel', () => {
    expect(destinationFor(AlertSettingsSchema.parse({}), { alertname: 'X' })).toEqual({ kind: 'nowhere' });
  });
});
