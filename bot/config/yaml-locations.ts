// Finds the line of a settings key in the YAML source, so errors can point at it; reports YAML syntax errors.
import { type Document, isAlias, isMap, isScalar, isSeq, type LineCounter, type YAMLError } from 'yaml';
import type { SettingsPath, SettingsProblem } from './settings-problem.js';
import { indentProblems } from './yaml-indent-problems.js';

export interface SourcePosition {
  line: number;
  column: number;
}

/**
 * The position of the deepest part of `path` present in the document. A missing key points at its parent,
 * which is where the person has to add it.
 */
export function locate(
  document: Document,
  lineCounter: LineCounter,
  path: SettingsPath,
): SourcePosition | undefined {
  let node: unknown = document.contents;
  let offset = startOf(node);
  for (const part of path) {
    if (isAlias(node)) node = node.resolve(document);
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(part));
      if (pair === undefined) break;
      // The key's line, not the value's: for a nested block the value starts a line later.
      offset = startOf(pair.key) ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof part === 'number') {
      const item: unknown = node.items[part];
      if (item === undefined) break;
      offset = startOf(item) ?? offset;
      node = item;
    } else {
      break;
    }
  }
  if (offset === undefined) return undefined;
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}

function startOf(node: unknown): number | undefined {
  if (typeof node !== 'object' || node === null || !('range' in node)) return undefined;
  const range = (node as { range?: [number, number, number] | null }).range;
  return range?.[0];
}

/**
 * Each YAML error as a problem of the whole file, with its line and column: indentation mistakes said plainly on
 * the line that is wrong (once, though the parser may report one twice), others in the parser's words with
 * its source excerpt.
 */
export function yamlSyntaxProblems(errors: readonly YAMLError[], text = ''): SettingsProblem[] {
  const plain = indentProblems(text, errors);
  const problems: SettingsProblem[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    const problem = plain.get(error) ?? parserProblem(error);
    const key = `${problem.line}:${problem.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
  }
  return problems;
}

function parserProblem(error: YAMLError): SettingsProblem {
  const position = error.linePos?.[0];
  // The parser's message repeats the position and appends an excerpt; keep the excerpt, drop the repetition.
  const [summary = error.message, ...excerpt] = error.message.split('\n');
  const text = summary.replace(/ at line \d+, column \d+:?$/, '');
  const detail = excerpt.filter((line) => line.trim() !== '').join('\n');
  return {
    key: '',
    ...(position === undefined ? {} : { line: position.line, column: position.col }),
    message: `YAML syntax error: ${text}${detail === '' ? '' : `\n${detail}`}`,
  };
}
