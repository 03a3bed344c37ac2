// Parses `tool_name key=value …` (or a configured alias) into a tool call, for use without a model.

export type ParsedCommand =
  | { kind: 'call'; tool: string; args: Record<string, string> }
  | { kind: 'help' }
  | { kind: 'not_a_command'; firstWord: string };

/** Splits on whitespace, keeping "double" or 'single' quoted parts together. */
export function splitWords(text: string): string[] {
  const words: string[] = [];
  const pattern = /(?:[^\s"']+|"[^"]*"|'[^']*')+/g;
  for (const match of text.matchAll(pattern)) {
    words.push(match[0].replace(/"([^"]*)"|'([^']*)'/g, (_whole, double, single) => double ?? single ?? ''));
  }
  return words;
}

export function parseCommand(
  text: string,
  isTool: (name: string) => boolean,
  aliases: Readonly<Record<string, string>>,
): ParsedCommand {
  let words = splitWords(text.trim());
  const first = words[0]?.toLowerCase() ?? '';
  if (first === '' || first === 'help' || first === '?') return { kind: 'help' };
  if (Object.hasOwn(aliases, first)) {
    words = [...splitWords(aliases[first]!), ...words.slice(1)];
  }
  const tool = words[0] ?? '';
  if (!isTool(tool)) return { kind: 'not_a_command', firstWord: first };
  const args: Record<string, string> = {};
  for (const word of words.slice(1)) {
    const equals = word.indexOf('=');
    if (equals <= 0) continue;
    args[word.slice(0, equals)] = word.slice(equals + 1);
  }
  return { kind: 'call', tool, args };
}
