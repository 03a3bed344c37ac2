// The team's notes about a scenario's world, as `model.instructions`: what an on-call engineer's bot would be
// told about their systems. A live model needs them to find "the payments API"; a scenario may write its own.
import type { World } from './schema.js';

export function worldNotes(world: World, values: Record<string, string>): string {
  const lines: string[] = [];
  for (const name of Object.keys(world.http))
    lines.push(`- ${name}: HTTP, checked at ${values[`http.${name}.url`]}`);
  for (const name of Object.keys(world.tcp)) {
    lines.push(`- ${name}: TCP, at ${values[`tcp.${name}.host`]} port ${values[`tcp.${name}.port`]}`);
  }
  const logs = Object.keys(world.logs);
  if (logs.length > 0) lines.push(`- log files, under the log root: ${logs.join(', ')}`);
  return lines.length > 0 ? `Services and logs here:\n${lines.join('\n')}` : '';
}
