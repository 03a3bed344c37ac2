// Indentation mistakes, the commonest YAML error, said plainly and on the line that is wrong: the parser
// reports an over-indented key on the line above it, as "Nested mappings are not allowed in compact mappings".
import type { YAMLError } from 'yaml';
import type { SettingsProblem } from './settings-problem.js';

/** Codes the parser gives a key indented more than the line above it, which already has a value. */
const OVER_INDENTED = new Set(['BLOCK_AS_IMPLICIT_KEY', 'MULTILINE_IMPLICIT_KEY']);

/**
 * A plain problem for each indentation error, keyed by the error it replaces; errors that are not about
 * indentation, or whose lines do not look as expected, are left to the parser's own wording.
 */
export function indentProblems(text: string, errors: readonly YAMLError[]): Map<YAMLError, SettingsProblem> {
  const lines = text.split(/\r?\n/);
  const explained = new Map<YAMLError, SettingsProblem>();
  for (const error of errors) {
    const line = error.linePos?.[0]?.line;
    if (line === undefined) continue;
    const problem = OVER_INDENTED.has(error.code)
      ? overIndented(lines, line)
      : error.code === 'BAD_INDENT'
        ? misaligned(lines, line)
        : undefined;
    if (problem) explained.set(error, problem);
  }
  return explained;
}

function overIndented(lines: string[], valueLine: number): SettingsProblem | undefined {
  const above = lines[valueLine - 1];
  const next = nextContentLine(lines, valueLine);
  if (above === undefined || next === undefined) return undefined;
  const wrong = lines[next - 1]!;
  if (indentOf(wrong) <= indentOf(above)) return undefined;
  const key = keyOf(wrong);
  const aboveKey = keyOf(above);
  return {
    key: '',
    line: next,
    column: indentOf(wrong) + 1,
    message:
      `${key ? `"${key}" is` : 'this line is'} indented ${spaces(indentOf(wrong))}, more than line ${valueLine} ` +
      `(${quote(above)}) at ${spaces(indentOf(above))}. ${aboveKey ? `"${aboveKey}"` : 'That line'} already has a ` +
      'value, so nothing can be nested under it. Indent this line like the line above, or, if it belongs ' +
      `under ${aboveKey ? `"${aboveKey}"` : 'it'}, move that value onto lines of its own.`,
  };
}

function misaligned(lines: string[], line: number): SettingsProblem | undefined {
  const wrong = lines[line - 1];
  const previous = previousContentLine(lines, line);
  if (wrong === undefined || previous === undefined) return undefined;
  const before = lines[previous - 1]!;
  // A line that lines up with an open block (a top-level key after an unclosed "[") is not misaligned:
  // something else is wrong, and the parser's words say it better.
  if (openBlockIndents(lines, line).includes(indentOf(wrong))) return undefined;
  const key = keyOf(wrong);
  return {
    key: '',
    line,
    column: indentOf(wrong) + 1,
    message:
      `${key ? `"${key}" is` : 'this line is'} indented ${spaces(indentOf(wrong))}, but line ${previous} ` +
      `(${quote(before)}) is indented ${spaces(indentOf(before))}. Keys in the same block must line up: indent ` +
      `it ${spaces(indentOf(before))}, or fewer to close the block it is in.`,
  };
}

/** The indentation of each block still open at `line`: the line above, then each shallower one before it. */
function openBlockIndents(lines: string[], line: number): number[] {
  const indents: number[] = [];
  for (let index = line - 2; index >= 0; index--) {
    if (!isContent(lines[index]!)) continue;
    const indent = indentOf(lines[index]!);
    if (indents.length === 0 || indent < indents.at(-1)!) indents.push(indent);
  }
  return indents;
}

function isContent(line: string): boolean {
  const trimmed = line.trim();
  return trimmed !== '' && !trimmed.startsWith('#');
}

function nextContentLine(lines: string[], after: number): number | undefined {
  for (let index = after; index < lines.length; index++) if (isContent(lines[index]!)) return index + 1;
  return undefined;
}

function previousContentLine(lines: string[], before: number): number | undefined {
  for (let index = before - 2; index >= 0; index--) if (isContent(lines[index]!)) return index + 1;
  return undefined;
}

function indentOf(line: string): number {
  return /^ */.exec(line)![0].length;
}

function keyOf(line: string): string | undefined {
  return /^\s*(?:-\s+)?(['"]?)([^'":#]+?)\1\s*:(\s|$)/.exec(line)?.[2];
}

function quote(line: string): string {
  const text = line.trim();
  return `"${text.length > 40 ? `${text.slice(0, 39)}…` : text}"`;
}

function spaces(count: number): string {
  return `${count} space${count === 1 ? '' : 's'}`;
}
