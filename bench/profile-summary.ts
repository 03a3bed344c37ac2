// Reads a V8 .cpuprofile (node --cpu-prof) and prints where the CPU went: by package, by function, and the
// kernel's own functions inclusive of what they call. Usage: npx tsx bench/profile-summary.ts FILE [--top N]
// [--under agent/,bot/] (the folders whose functions are reported inclusively; agent/ by default)
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '25' }, under: { type: 'string', default: 'agent/' } },
});
const file = positionals[0];
if (!file) {
  console.error('usage: npx tsx bench/profile-summary.ts PROFILE.cpuprofile [--top N] [--under agent/,bot/]');
  process.exit(2);
}
const top = Number(values.top);
const under = values.under.split(',').filter(Boolean);
const ours = (where: string) => under.some((prefix) => where.startsWith(prefix));
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

const IDLE = new Set(['(idle)', '(root)']);
const busySamples = profile.samples.filter((id) => !IDLE.has(byId.get(id)!.callFrame.functionName));
const total = busySamples.length;

/** Where a frame lives: a repo folder, a package, node's internals, or V8's own buckets. */
function place(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node:internal';
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const inModules = path.lastIndexOf('node_modules/');
  if (inModules >= 0) {
    const rest = path.slice(inModules + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  return relative(repoRoot, path);
}

// No line numbers: tsx transpiles on the fly, so the profile's lines are not the source's.
function frameKey(node: ProfileNode): string {
  const { functionName, url } = node.callFrame;
  return `${functionName || '(anonymous)'}  ${place(url, functionName)}`;
}

const selfByFrame = new Map<string, number>();
const selfByPlace = new Map<string, number>();
const inclusiveAgent = new Map<string, number>();
let underAgent = 0;
for (const id of busySamples) {
  const leaf = byId.get(id)!;
  bump(selfByFrame, frameKey(leaf));
  bump(selfByPlace, place(leaf.callFrame.url, leaf.callFrame.functionName));
  const seen = new Set<string>();
  for (let current: number | undefined = id; current !== undefined; current = parentOf.get(current)) {
    const node = byId.get(current)!;
    if (ours(place(node.callFrame.url, node.callFrame.functionName))) seen.add(frameKey(node));
  }
  if (seen.size > 0) underAgent += 1;
  for (const key of seen) bump(inclusiveAgent, key);
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

function print(title: string, map: Map<string, number>, limit: number): void {
  console.log(`\n${title}`);
  const rows = [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, limit);
  for (const [key, count] of rows) console.log(`${((100 * count) / total).toFixed(1).padStart(6)}%  ${key}`);
}

console.log(`${file}: ${total} busy samples (idle excluded)`);
console.log(
  `samples with a ${under.join(' or ')} frame on the stack: ${((100 * underAgent) / total).toFixed(1)}%`,
);
print('Self time by place (file in the repo, package, or V8 bucket)', selfByPlace, top);
print('Self time by function', selfByFrame, top);
print(`${under.join(', ')} functions, inclusive (self plus everything they call)`, inclusiveAgent, top);
