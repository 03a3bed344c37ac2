// The start-up warning's list: the alert channels on a platform this process posts nowhere.
import { describe, expect, it } from 'vitest';
import { AlertSettingsSchema } from '../../bot/alerts/alert-settings.js';
import { alertChannelsWithoutAdapter } from '../../bot/services/alerts-service.js';

describe('alert channels without an adapter', () => {
  it('names each channel, default and routes, whose platform does not run here, once', () => {
    const settings = AlertSettingsSchema.parse({
      channel: 'slack:C0ALERTS',
      routes: [
        { match: { severity: 'critical' }, channel: 'discord:123456789012345678' },
        { match: { team: 'web' }, channel: 'slack:C0ALERTS' },
        { match: { team: 'db' }, channel: 'playground:alerts' },
        { match_re: { alertname: 'Watchdog' }, drop: true },
      ],
    });
    expect(alertChannelsWithoutAdapter(settings, (platform) => platform === 'playground')).toEqual([
      'slack:C0ALERTS',
      'discord:123456789012345678',
    ]);
    expect(alertChannelsWithoutAdapter(settings, () => true)).toEqual([]);
  });
});
