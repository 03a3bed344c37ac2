// MCP pins in a real Store: first sight, trust of one tool or all, and stored pins that do not parse.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../agent/clock.js';
import { MemoryStore } from '../../agent/store/memory-store.js';
import { storeKeys } from '../../agent/store/store-keys.js';
import { McpPinRepository } from '../../tools/mcp/mcp-pin-repository.js';
import { definitionHash, type McpToolDefinition, pinStates } from '../../tools/mcp/mcp-pins.js';

const podsList: McpToolDefinition = {
  name: 'pods_list',
  description: 'Lists the pods of a namespace.',
  inputSchema: { type: 'object', properties: { namespace: { type: 'string' } } },
  annotations: { readOnlyHint: true },
};
const podsDelete: McpToolDefinition = {
  name: 'pods_delete',
  description: 'Deletes a pod.',
  inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
};

function rig() {
  const clock = new ManualClock();
  const store = new MemoryStore(clock);
  return { clock, store, pins: new McpPinRepository(store, clock) };
}

describe('McpPinRepository', () => {
  it('finds nothing for a server never seen, then the pins first sight recorded', async () => {
    const { clock, pins } = rig();
    expect((await pins.find('kube')).size).toBe(0);
    await pins.recordFirstSight('kube', [podsList, podsDelete]);
    const found = await pins.find('kube');
    expect([...found.keys()]).toEqual(['pods_list', 'pods_delete']);
    expect(found.get('pods_list')).toEqual({
      hash: definitionHash(podsList),
      definition: podsList,
      trustedAt: clock.now(),
      trustedBy: 'first sight',
    });
    expect((await pins.find('grafana')).size).toBe(0);
  });

  it('does not overwrite a pin when a second first sight or trust_new_tools records the same tool', async () => {
    const { clock, pins } = rig();
    await pins.recordFirstSight('kube', [podsList]);
    clock.advance(1000);
    const changed = { ...podsList, description: 'Changed.' };
    await pins.recordFirstSight('kube', [changed, podsDelete]);
    const found = await pins.find('kube');
    expect(found.get('pods_list')?.hash).toBe(definitionHash(podsList));
    expect(found.get('pods_delete')?.trustedAt).toBe(clock.now());
  });

  it('trusts one tool, or every listed tool, with who and when, and the states follow', async () => {
    const { clock, pins } = rig();
    await pins.recordFirstSight('kube', [podsList]);
    const changed = { ...podsList, description: 'Lists pods, changed.' };
    const listed = [changed, podsDelete];
    const before = pinStates('kube', listed, await pins.find('kube'), {
      trustNewTools: false,
      now: clock.now(),
    });
    expect(before.states.map((state) => state.state)).toEqual(['changed', 'new']);

    clock.advance(60_000);
    expect(await pins.trust('kube', listed, 'slack:T1:U42', 'pods_list')).toEqual(['pods_list']);
    const one = await pins.find('kube');
    expect(one.get('pods_list')).toMatchObject({ trustedBy: 'slack:T1:U42', trustedAt: clock.now() });
    expect(one.get('pods_list')?.definition.description).toBe('Lists pods, changed.');
    expect(one.get('pods_delete')).toBeUndefined();

    expect(await pins.trust('kube', listed, 'slack:T1:U42')).toEqual(['pods_delete']);
    const after = pinStates('kube', listed, await pins.find('kube'), {
      trustNewTools: false,
      now: clock.now(),
    });
    expect(after.states.map((state) => state.state)).toEqual(['trusted', 'trusted']);
    await expect(pins.trust('kube', listed, 'slack:T1:U42', 'pods_gone')).rejects.toThrow(
      /lists no tool "pods_gone"/,
    );
  });

  it('keeps a tool named __proto__ as a tool, not a prototype', async () => {
    const { pins } = rig();
    await pins.recordFirstSight('odd', [{ ...podsDelete, name: '__proto__' }, podsList]);
    const found = await pins.find('odd');
    expect([...found.keys()].sort()).toEqual(['__proto__', 'pods_list']);
    expect(found.get('__proto__')?.definition.description).toBe('Deletes a pod.');
  });

  it('refuses pins in the store that do not parse, rather than trusting the server afresh', async () => {
    const { store, pins } = rig();
    await store.set(storeKeys.mcpPins('kube'), { version: 1, pins: [{ hash: 'nope' }] });
    await expect(pins.find('kube')).rejects.toThrow(
      /the pins of MCP server kube in the store \(mcp-pins:kube\) do not parse/,
    );
  });
});
