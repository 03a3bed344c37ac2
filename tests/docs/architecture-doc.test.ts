// docs/architecture.md shows the run machine as it is: its generated part must match the machine.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RUN_STATUSES } from '../../agent/run.js';
import { DIAGRAM_END, DIAGRAM_START, machineEdges, renderStateDiagram } from './state-diagram.js';

describe('docs/architecture.md', () => {
  const text = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');

  it('shows the states and transitions the machine has (run `npm run docs:states` after changing it)', () => {
    const generated = text.slice(
      text.indexOf(DIAGRAM_START) + DIAGRAM_START.length,
      text.indexOf(DIAGRAM_END),
    );
    expect(generated.trim()).toBe(renderStateDiagram());
  });

  it('reaches every state from queued', () => {
    const reached = new Set(['queued']);
    for (let round = 0; round < RUN_STATUSES.length; round++)
      for (const edge of machineEdges()) if (reached.has(edge.from)) reached.add(edge.to);
    expect([...reached].sort()).toEqual([...RUN_STATUSES].sort());
  });
});
