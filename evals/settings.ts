// A scenario's settings: the base file, the scenario's overrides, its people and its log root, validated as opsbot would.
import { readFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { parseSettings } from '../bot/config/load-settings.js';
import type { Settings } from '../bot/config/settings-schema.js';
import type { Identity, Scenario } from './schema.js';

const BASE_SETTINGS_URL = new URL('./base-settings.yaml', import.meta.url);

type Tree = Record<string, unknown>;

const isTree = (value: unknown): value is Tree =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Objects merge key by key; arrays and scalars in `over` replace what `base` had. */
export function mergeSettings(base: Tree, over: Tree): Tree {
  const merged: Tree = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = merged[key];
    merged[key] = isTree(current) && isTree(value) ? mergeSettings(current, value) : value;
  }
  return merged;
}

function identityEntries(people: Identity[]): Tree {
  const identities: Tree = {};
  for (const person of people) {
    const earlier = identities[person.identity] as { roles: string[] } | undefined;
    identities[person.identity] = {
      roles: [...new Set([...(earlier?.roles ?? []), ...person.roles])],
      display_name: person.display_name ?? person.identity.split(':')[1],
    };
  }
  return identities;
}

export interface GeneratedSettings {
  /** The world's log directory, which becomes the only log root. */
  logsDir: string | undefined;
  /** The team's notes about the world (`model.instructions`), unless the scenario writes its own. */
  notes: string;
  /** `mcp.servers` for the world's MCP servers; empty when it has none. */
  mcpServers?: Tree;
  /** Settings the mode needs (a live model's longer timeouts), applied before the scenario's own. */
  mode?: Tree;
}

/** The validated settings for a scenario; `overrides` have had their placeholders filled already. */
export function scenarioSettings(
  scenario: Scenario,
  overrides: Tree,
  generatedBy: GeneratedSettings,
): Settings {
  const base = parse(readFileSync(BASE_SETTINGS_URL, 'utf8')) as Tree;
  const people = [scenario.who, ...scenario.person.approvals];
  const { logsDir, notes, mcpServers } = generatedBy;
  const generated: Tree = {
    permissions: { identities: identityEntries(people) },
    ...(logsDir ? { tools: { log_roots: [logsDir] } } : {}),
    ...(mcpServers && Object.keys(mcpServers).length > 0 ? { mcp: { servers: mcpServers } } : {}),
    ...(notes ? { model: { instructions: notes } } : {}),
  };
  const withMode = mergeSettings(mergeSettings(base, generated), generatedBy.mode ?? {});
  const merged = mergeSettings(withMode, overrides);
  return parseSettings(stringify(merged), `scenario ${scenario.name} (evals/base-settings.yaml + settings:)`);
}
