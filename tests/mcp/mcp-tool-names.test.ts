// MCP tools' registry names: `<server>__<tool>`, refused when too long, badly spelt or taken, and filtered by globs.
import { describe, expect, it } from 'vitest';
import { mcpRegistryName, nameMcpTools } from '../../tools/mcp/mcp-tool-names.js';

const all = { include: ['*'], exclude: [] };

describe('nameMcpTools', () => {
  it('names each tool <server>__<tool>', () => {
    const naming = nameMcpTools(
      [{ server: 'kube', tools: ['pods_list', 'Get-Logs'], ...all }],
      ['disk_usage'],
    );
    expect(naming.named).toEqual([
      { server: 'kube', tool: 'pods_list', name: 'kube__pods_list' },
      { server: 'kube', tool: 'Get-Logs', name: 'kube__Get-Logs' },
    ]);
    expect(naming.refused).toEqual([]);
    expect(mcpRegistryName('grafana', 'search')).toBe('grafana__search');
  });

  it('refuses a name over 64 characters and one with characters a function name cannot have', () => {
    const long = 'x'.repeat(59); // kube__ + 59 = 65
    const fits = 'y'.repeat(58); // kube__ + 58 = 64
    const naming = nameMcpTools(
      [{ server: 'kube', tools: [long, fits, 'pods.list', 'pods list'], ...all }],
      [],
    );
    expect(naming.named.map((tool) => tool.name)).toEqual([`kube__${fits}`]);
    expect(naming.refused.map(({ tool, reason }) => [tool, reason])).toEqual([
      [long, 'too_long'],
      ['pods.list', 'invalid_characters'],
      ['pods list', 'invalid_characters'],
    ]);
    expect(naming.refused[0]?.message).toContain('65 characters');
    expect(naming.refused[1]?.message).toContain('tool "pods.list" of MCP server "kube"');
  });

  it('refuses a collision with a built-in tool, naming both, and leaves the built-in its name', () => {
    const naming = nameMcpTools([{ server: 'kube', tools: ['pods_list'], ...all }], ['kube__pods_list']);
    expect(naming.named).toEqual([]);
    expect(naming.refused).toEqual([
      expect.objectContaining({
        name: 'kube__pods_list',
        reason: 'collision',
        message: expect.stringMatching(
          /tool "pods_list" of MCP server "kube" would have the same name as the built-in tool "kube__pods_list"/,
        ),
      }),
    ]);
  });

  it('refuses both MCP tools that would share a name, each naming the other', () => {
    const naming = nameMcpTools(
      [
        { server: 'a', tools: ['_b', 'c'], ...all },
        { server: 'a_', tools: ['b'], ...all },
      ],
      [],
    );
    expect(naming.named.map((tool) => tool.name)).toEqual(['a__c']);
    expect(naming.refused.map(({ name, message }) => [name, message])).toEqual([
      [
        'a___b',
        expect.stringContaining(
          'tool "_b" of MCP server "a" would have the same name as the tool "b" of MCP server "a_"',
        ),
      ],
      [
        'a___b',
        expect.stringContaining(
          'tool "b" of MCP server "a_" would have the same name as the tool "_b" of MCP server "a"',
        ),
      ],
    ]);
  });

  it("filters by the server's globs over the tool's own name, exclude winning", () => {
    const naming = nameMcpTools(
      [
        {
          server: 'grafana',
          tools: ['search_dashboards', 'query_prometheus', 'query_delete', 'create_annotation'],
          include: ['search_*', 'query_*'],
          exclude: ['*_delete'],
        },
      ],
      [],
    );
    expect(naming.named.map((tool) => tool.tool)).toEqual(['search_dashboards', 'query_prometheus']);
    expect(naming.filtered).toEqual([
      { server: 'grafana', tool: 'query_delete' },
      { server: 'grafana', tool: 'create_annotation' },
    ]);
    // A glob over the registry name matches nothing: the globs are the server's own names.
    expect(
      nameMcpTools([{ server: 'grafana', tools: ['search'], include: ['grafana__*'], exclude: [] }], [])
        .named,
    ).toEqual([]);
  });

  it('does not refuse a filtered tool, whatever its name', () => {
    const naming = nameMcpTools(
      [{ server: 'kube', tools: ['x'.repeat(80), 'pods_list'], include: ['pods_*'], exclude: [] }],
      ['kube__other'],
    );
    expect(naming.refused).toEqual([]);
    expect(naming.named.map((tool) => tool.name)).toEqual(['kube__pods_list']);
  });
});
