// An MCP tool's risk: settings first, then the server's hints, else write; and where it came from.
import { describe, expect, it } from 'vitest';
import { mcpToolRisk } from '../../tools/mcp/mcp-risk.js';

describe('mcpToolRisk', () => {
  it('takes the settings first, over any annotation', () => {
    expect(mcpToolRisk('pods_delete', { pods_delete: 'write' }, { destructiveHint: true })).toEqual({
      risk: 'write',
      source: 'settings',
    });
    expect(mcpToolRisk('pods_list', { pods_list: 'danger' }, { readOnlyHint: true })).toEqual({
      risk: 'danger',
      source: 'settings',
    });
  });

  it('takes readOnlyHint before destructiveHint, then write when neither is true', () => {
    expect(mcpToolRisk('a', {}, { readOnlyHint: true, destructiveHint: true })).toEqual({
      risk: 'read',
      source: 'readOnlyHint',
    });
    expect(mcpToolRisk('a', {}, { readOnlyHint: false, destructiveHint: true })).toEqual({
      risk: 'danger',
      source: 'destructiveHint',
    });
    expect(mcpToolRisk('a', {}, { destructiveHint: false })).toEqual({ risk: 'write', source: 'default' });
    expect(mcpToolRisk('a', {}, undefined)).toEqual({ risk: 'write', source: 'default' });
  });

  it('is not fooled by a tool named after an inherited property', () => {
    expect(mcpToolRisk('constructor', {}, undefined)).toEqual({ risk: 'write', source: 'default' });
    expect(mcpToolRisk('__proto__', {}, { readOnlyHint: true })).toEqual({
      risk: 'read',
      source: 'readOnlyHint',
    });
  });
});
