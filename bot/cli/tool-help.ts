// `help` in the terminal: each tool a person may use, with its arguments as `key=value` and what they mean.
import type { ModelToolSpec } from '../../agent/model/model-port.js';
import { toolUsage } from '../chat/tool-usage.js';
import { bold, cyan, dim } from './terminal-colors.js';

/** One tool: its name and first sentence, then one line per argument (required first). */
export function formatToolHelp(spec: ModelToolSpec, note = ''): string {
  const usage = toolUsage(spec);
  const lines = [`  ${bold(usage.name)} ${cyan(usage.usage)}${note ? dim(` (${note})`) : ''}`];
  lines.push(`      ${usage.summary}`);
  for (const argument of usage.arguments) {
    const facts = [
      argument.shape,
      argument.required ? 'required' : undefined,
      argument.default !== undefined ? `default ${JSON.stringify(argument.default)}` : undefined,
    ].filter(Boolean);
    const description = argument.description ? `: ${argument.description}` : '';
    lines.push(dim(`      ${argument.name} (${facts.join(', ')})${description}`));
  }
  return lines.join('\n');
}
