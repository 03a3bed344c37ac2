// Tool name patterns from settings (names or globs such as restart_*), compiled once and reused.
import picomatch from 'picomatch';

const compiled = new Map<string, (name: string) => boolean>();

function matcher(pattern: string): (name: string) => boolean {
  let match = compiled.get(pattern);
  if (!match) {
    match = picomatch(pattern);
    compiled.set(pattern, match);
  }
  return match;
}

export function matchesAnyToolPattern(patterns: readonly string[], toolName: string): boolean {
  return patterns.some((pattern) => pattern === toolName || matcher(pattern)(toolName));
}
