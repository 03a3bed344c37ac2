// Result facts: labels written for people, units on the values, and colour by what a field means.
import { describe, expect, it } from 'vitest';
import { fact, factLabel } from '../../bot/chat/result-facts.js';
import { VIEW_LIMITS } from '../../bot/chat/view-limits.js';
import { toolDataView } from '../../bot/chat/view-tables.js';

describe('result facts', () => {
  it('writes labels for people, with the unit on the value', () => {
    expect(factLabel('cpus')).toBe('CPUs');
    expect(factLabel('uptime_seconds')).toBe('Up for');
    expect(factLabel('latency_ms')).toBe('Latency');
    expect(factLabel('final_url')).toBe('Final URL');
    expect(factLabel('inodes_percent')).toBe('Inodes %');
    expect(fact('latency_ms', 1234).text).toBe('1,234 ms');
    expect(fact('uptime_seconds', 3 * 86_400 + 4 * 3_600).text).toBe('3d 4h');
    expect(fact('used_bytes', 3 * 1024 ** 3).text).toBe('3.0 GiB');
  });

  it('colours by meaning: a false that is good news is green, a true that is bad news red', () => {
    expect(fact('timed_out', false)).toMatchObject({ label: 'Timed out', text: 'no', tone: 'good' });
    expect(fact('timed_out', true).tone).toBe('bad');
    expect(fact('connected', false).tone).toBe('bad');
    expect(fact('connected', true).tone).toBe('good');
    expect(fact('exit_code', 0).tone).toBe('good');
    expect(fact('exit_code', 1).tone).toBe('bad');
    expect(fact('error_code', 'ECONNREFUSED').tone).toBe('bad');
    expect(fact('error_code', null)).toMatchObject({ text: '—' });
    expect(fact('error_code', null)).not.toHaveProperty('tone');
    // A yes/no whose name says nothing about which answer is good gets no colour at all.
    expect(fact('ipv6', false)).not.toHaveProperty('tone');
  });

  it("shows system_stats' load, memory and swap among its facts, and uptime once", () => {
    const data = {
      load: { one: 0.52, five: 0.61, fifteen: 0.7, per_cpu_one: 0.13 },
      cpus: 4,
      memory: {
        total_bytes: 8 * 1024 ** 3,
        used_bytes: 3 * 1024 ** 3,
        available_bytes: 5 * 1024 ** 3,
        percent: 37.5,
        total: '8.0 GiB',
        used: '3.0 GiB',
      },
      swap: { total_bytes: 0, used_bytes: 0, percent: 0 },
      uptime_seconds: 90_000,
      uptime: '1d 1h',
    };
    const { fields, raw } = toolDataView(data, VIEW_LIMITS.playground);
    expect(fields.map((field) => [field.label, field.text])).toEqual([
      ['Load (1, 5, 15 min)', '0.52 / 0.61 / 0.7'],
      ['CPUs', '4'],
      ['Memory', '37.5% used (3.0 GiB of 8.0 GiB)'],
      ['Swap', 'none'],
      ['Up for', '1d 1h'],
    ]);
    expect(raw).toBeUndefined();
  });

  it('marks yes/no table columns whose name says which answer is good', () => {
    const { tables } = toolDataView(
      { checks: [{ host: 'a', connected: true, ipv6: false }] },
      VIEW_LIMITS.playground,
    );
    expect(tables[0]!.columns).toEqual([
      { key: 'host', label: 'Host', numeric: false },
      { key: 'connected', label: 'Connected', numeric: false, goodWhen: true },
      { key: 'ipv6', label: 'Ipv6', numeric: false },
    ]);
  });
});
