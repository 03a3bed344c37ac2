// The kernel's defaults are the settings schema's defaults: one source each, so the two cannot drift apart.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONTEXT } from '../../agent/context/context-settings.js';
import { Kernel } from '../../agent/kernel.js';
import {
  DEFAULT_LIMITS,
  KernelLimitsSettingsSchema,
  kernelLimitsFromSettings,
} from '../../agent/kernel-limits.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { SettingsSchema } from '../../bot/config/settings-schema.js';

const defaults = SettingsSchema.parse({});

describe('settings defaults', () => {
  it('are the limits of a kernel given none', async () => {
    const kernel = new Kernel({ store: new MemoryStore(), tools: [] });
    expect(kernel.limits).toEqual(kernelLimitsFromSettings(defaults.limits));
    expect(kernel.limits).toEqual(DEFAULT_LIMITS);
    await kernel.shutdown();
  });

  it('fill in the limits a kernel is not given', async () => {
    const kernel = new Kernel({ store: new MemoryStore(), tools: [], limits: { maxSteps: 3 } });
    expect(kernel.limits).toEqual({ ...kernelLimitsFromSettings(defaults.limits), maxSteps: 3 });
    await kernel.shutdown();
  });

  it('map every limit the kernel reads, each to a value', () => {
    const mapped = kernelLimitsFromSettings(defaults.limits);
    expect(Object.keys(mapped)).toHaveLength(Object.keys(KernelLimitsSettingsSchema.shape).length);
    const { toolBudgets, ...numbers } = mapped;
    for (const value of Object.values(numbers)) expect(value).toEqual(expect.any(Number));
    expect(toolBudgets).toEqual({ defaultCalls: defaults.limits.tool_budgets.default_calls, calls: {} });
    expect(toolBudgets.defaultCalls).toEqual(expect.any(Number));
  });

  it('are the context window, compression point and kept tool outputs the engines use when given none', () => {
    const { context_window, compress_at, keep_tool_outputs } = defaults.model;
    expect(DEFAULT_CONTEXT).toEqual({ context_window, compress_at, keep_tool_outputs });
  });
});
