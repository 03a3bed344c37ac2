// Quiet hours by the wall clock of their zone: across midnight, and across both daylight-saving changes.
import { describe, expect, it } from 'vitest';
import { inQuietHours, quietHoursEnd } from '../../scheduled/quiet-hours.js';

const berlin = { from: '22:00', to: '07:00', timezone: 'Europe/Berlin', min_severity: 'critical' as const };
const at = (iso: string) => Date.parse(iso);

describe('inQuietHours', () => {
  it.each([
    ['21:59 local (winter)', '2026-01-15T20:59:00Z', false],
    ['22:00 local (winter)', '2026-01-15T21:00:00Z', true],
    ['midnight local', '2026-01-15T23:00:00Z', true],
    ['06:59 local (winter)', '2026-01-16T05:59:00Z', true],
    ['07:00 local (winter)', '2026-01-16T06:00:00Z', false],
    ['noon', '2026-01-16T11:00:00Z', false],
    ['06:30 local (summer) is 04:30 UTC', '2026-07-01T04:30:00Z', true],
    ['07:00 local (summer) is 05:00 UTC', '2026-07-01T05:00:00Z', false],
    ['22:00 local (summer) is 20:00 UTC', '2026-07-01T20:00:00Z', true],
  ])('%s', (_name, iso, expected) => {
    expect(inQuietHours(berlin, at(iso))).toBe(expected);
  });

  it('quiet hours within one day, and none when from equals to', () => {
    const lunch = { ...berlin, from: '12:00', to: '13:00', timezone: 'UTC' };
    expect(inQuietHours(lunch, at('2026-01-15T12:30:00Z'))).toBe(true);
    expect(inQuietHours(lunch, at('2026-01-15T13:00:00Z'))).toBe(false);
    expect(inQuietHours(lunch, at('2026-01-15T11:59:00Z'))).toBe(false);
    expect(inQuietHours({ ...lunch, to: '12:00' }, at('2026-01-15T12:00:00Z'))).toBe(false);
  });
});

describe('quietHoursEnd', () => {
  it.each([
    ['a winter night ends at 07:00 CET = 06:00 UTC', '2026-01-15T23:00:00Z', '2026-01-16T06:00:00Z'],
    [
      'the night of the spring change ends at 07:00 CEST = 05:00 UTC',
      '2026-03-28T22:30:00Z',
      '2026-03-29T05:00:00Z',
    ],
    [
      'the night of the autumn change ends at 07:00 CET = 06:00 UTC',
      '2026-10-24T21:30:00Z',
      '2026-10-25T06:00:00Z',
    ],
    ['outside quiet hours: the end of the next ones', '2026-07-01T12:00:00Z', '2026-07-02T05:00:00Z'],
    ['at the last quiet minute', '2026-01-16T05:59:30Z', '2026-01-16T06:00:00Z'],
  ])('%s', (_name, now, end) => {
    expect(new Date(quietHoursEnd(berlin, at(now))).toISOString()).toBe(new Date(at(end)).toISOString());
  });

  it('quiet hours that end inside the skipped hour end when the clock jumps past them', () => {
    const early = { ...berlin, from: '01:00', to: '02:30' };
    // 02:00 CET jumps to 03:00 CEST at 01:00 UTC on 2026-03-29.
    expect(quietHoursEnd(early, at('2026-03-29T00:10:00Z'))).toBe(at('2026-03-29T01:00:00Z'));
    expect(inQuietHours(early, at('2026-03-29T00:59:00Z'))).toBe(true);
    expect(inQuietHours(early, at('2026-03-29T01:00:00Z'))).toBe(false);
  });

  it('quiet hours that end inside the repeated hour end at its first pass', () => {
    const early = { ...berlin, from: '01:00', to: '02:30' };
    // 02:30 CEST is 00:30 UTC; the clock then says 02:30 again (CET) at 01:30 UTC.
    expect(quietHoursEnd(early, at('2026-10-24T23:10:00Z'))).toBe(at('2026-10-25T00:30:00Z'));
  });

  it('is the first instant outside quiet hours, over a year of nights', () => {
    const start = at('2026-01-01T12:00:00Z');
    for (let day = 0; day < 365; day += 1) {
      const evening = start + day * 86_400_000 + 11 * 3_600_000; // 23:00 UTC: inside quiet hours all year
      const end = quietHoursEnd(berlin, evening);
      expect(inQuietHours(berlin, end - 60_000)).toBe(true);
      expect(inQuietHours(berlin, end)).toBe(false);
      expect(end - evening).toBeLessThan(8 * 3_600_000);
    }
  });

  it('returns now when from equals to (no quiet hours)', () => {
    expect(quietHoursEnd({ ...berlin, to: '22:00' }, 1234)).toBe(1234);
  });
});
