// `alerts:` is checked like the rest of the settings: each problem with its key, its line and a did-you-mean.
import { describe, expect, it } from 'vitest';
import { parseSettings } from '../../bot/config/load-settings.js';
import { InvalidSettingsError } from '../../bot/config/settings-problem.js';

function problems(text: string) {
  try {
    parseSettings(text, 'opsbot.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidSettingsError);
    return (error as InvalidSettingsError).problems.map(({ key, line, message }) => ({ key, line, message }));
  }
  throw new Error('expected the settings to be rejected');
}

describe('the alerts settings', () => {
  it('take the documented example', () => {
    const settings = parseSettings(
      [
        'permissions:',
        '  roles:',
        '    alerts: { tools: ["*"], risks: [read] }',
        'alerts:',
        '  channel: slack:C0123ABC',
        '  investigate: true',
        '  role: alerts',
        '  max_investigations_per_hour: 30',
        '  routes:',
        '    - match: { severity: critical }',
        '      channel: discord:123456789012345678',
        '    - match_re: { alertname: "Watchdog|InfoInhibitor" }',
        '      drop: true',
        '',
      ].join('\n'),
      'opsbot.yaml',
    );
    expect(settings.alerts.routes).toHaveLength(2);
    expect(settings.alerts.channel).toEqual({ platform: 'slack', channelId: 'C0123ABC' });
  });

  it('name a misspelt key with its line and a did-you-mean', () => {
    const found = problems(['alerts:', '  channel: slack:C0123ABC', '  investgate: true', ''].join('\n'));
    expect(found).toEqual([
      expect.objectContaining({
        key: 'alerts.investgate',
        line: 3,
        message: expect.stringContaining('investigate'),
      }),
    ]);
  });

  it('refuse a bad channel, a route regular expression that does not compile, and an unknown role', () => {
    const found = problems(
      ['alerts:', '  channel: C0123ABC', '  routes:', '    - match_re: { alertname: "Disk(" }', ''].join(
        '\n',
      ),
    );
    expect(found.map((problem) => [problem.key, problem.line])).toEqual([['alerts.channel', 2]]);
    const more = problems(
      [
        'alerts:',
        '  role: alert',
        '  routes:',
        '    - match_re: { alertname: "Disk(" }',
        '      mach: {}',
        '',
      ].join('\n'),
    );
    expect(more).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          key: 'alerts.routes[0].mach',
          line: 5,
          message: expect.stringContaining('match'),
        }),
      ]),
    );
    const roles = problems(
      ['alerts:', '  role: patrl', '  routes:', '    - match_re: { alertname: "Disk(" }', ''].join('\n'),
    );
    expect(roles).toEqual([
      expect.objectContaining({
        key: 'alerts.role',
        line: 2,
        message: expect.stringContaining('did you mean "patrol"'),
      }),
      expect.objectContaining({
        key: 'alerts.routes[0].match_re.alertname',
        line: 4,
        message: expect.stringContaining('regular expression'),
      }),
    ]);
  });
});
