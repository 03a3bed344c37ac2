// Attack: a viewer's log_search whose pattern matches a private key's body lines, but not its BEGIN or END line.
import { generateKeyPairSync } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDACTED } from '../../agent/redaction.js';
import type { Tool } from '../../agent/tool.js';
import { createLogSearchTool } from '../../tools/log-search.js';
import { makeTempDir, removeTempDirs } from '../tools/helpers/temp-dir.js';
import { callTool, dataOf, testContext } from '../tools/helpers/tool-context.js';

const PEM_LINES = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString()
  .trimEnd()
  .split('\n');
const BODY = PEM_LINES.slice(1, -1);
/** Stands in for a certificate body: the same alphabet and width, not the key's lines. */
const CERTIFICATE_BODY = BODY.slice(0, 8).map((line) => [...line].reverse().join(''));
/** Matches whole base64 body lines and nothing else in these files. */
const BODY_PATTERN = '^[A-Za-z0-9+/]{64}$';

const viewer = testContext({
  principal: { platform: 'cli', userId: 'v', displayName: 'Viewer', roles: ['viewer'], groups: [] },
});
let root: string;
let tool: Tool;

const logLines = (count: number, label: string) =>
  Array.from({ length: count }, (_, index) => `2026-01-15T11:00:00Z INFO ${label} request ${index} ok`);

interface Match {
  text: string;
  line_from_end: number;
}

async function search(glob: string, pattern: string, extra: Record<string, unknown> = {}) {
  const result = await callTool(tool, { glob, pattern, regex: true, ...extra }, viewer);
  const matches = dataOf(result).matches as Match[];
  const shown = JSON.stringify(result);
  for (const line of BODY) expect(shown).not.toContain(line);
  return matches;
}

beforeAll(async () => {
  root = join(await makeTempDir(), 'logs');
  await mkdir(root);
  const write = (name: string, lines: string[]) => writeFile(join(root, name), `${lines.join('\n')}\n`);
  await write('whole.log', [...logLines(5, 'before'), ...PEM_LINES, ...logLines(5, 'after')]);
  // A rotated log whose first lines (the BEGIN line and some body) went to the previous file.
  await write('rotated.log', [...PEM_LINES.slice(6), ...logLines(5, 'after')]);
  // A key logged by something that stopped before the END line.
  await write('cut.log', [...logLines(5, 'before'), ...PEM_LINES.slice(0, -4), ...logLines(5, 'after')]);
  // The search's first 500-line batch ends on the key's last full body line, so max_lines stops it there, with
  // BEGIN and the rest of the body not yet read.
  await write('straddle.log', [
    ...logLines(3, 'before'),
    ...PEM_LINES.slice(0, 21),
    ...logLines(499, 'after'),
  ]);
  // A certificate is public: its body has the same shape as a key's and must still be searchable.
  await write('certificate.log', [
    ...logLines(2, 'before'),
    '-----BEGIN CERTIFICATE-----',
    ...CERTIFICATE_BODY,
    '-----END CERTIFICATE-----',
    ...logLines(2, 'after'),
  ]);
  tool = createLogSearchTool({ roots: [root] });
});

afterAll(removeTempDirs);

describe('attack: log_search on private key body lines', () => {
  it('attack: PEM key body matched without its BEGIN or END line is redacted (reading backwards from END)', async () => {
    const matches = await search('whole.log', BODY_PATTERN);
    expect(matches.length).toBeGreaterThan(10);
    for (const match of matches) expect(match.text).toBe(REDACTED);
    // Ordinary lines around the key are still shown.
    const around = await search('whole.log', 'request 4 ok');
    expect(around.map((match) => match.text)).toEqual([
      '2026-01-15T11:00:00Z INFO after request 4 ok',
      '2026-01-15T11:00:00Z INFO before request 4 ok',
    ]);
  });

  it('attack: a plain-text pattern taken from a body line gets no key material back', async () => {
    const fragment = (BODY[3] ?? '').slice(10, 30);
    const matches = await callTool(tool, { glob: 'whole.log', pattern: fragment }, viewer);
    expect(dataOf(matches).matches).toEqual([expect.objectContaining({ text: REDACTED })]);
  });

  it('attack: PEM key body of a rotated log with no BEGIN line is redacted', async () => {
    const matches = await search('rotated.log', BODY_PATTERN);
    expect(matches.length).toBeGreaterThan(5);
    for (const match of matches) expect(match.text).toBe(REDACTED);
  });

  it('attack: PEM key body with BEGIN but no END line is redacted once reading backwards reaches BEGIN', async () => {
    const matches = await search('cut.log', BODY_PATTERN);
    expect(matches.length).toBeGreaterThan(5);
    for (const match of matches) expect(match.text).toBe(REDACTED);
    const after = await search('cut.log', 'after request 0 ok');
    expect(after[0]?.text).toBe('2026-01-15T11:00:00Z INFO after request 0 ok');
  });

  it('still shows the body lines of a certificate, which is public', async () => {
    const result = await callTool(
      tool,
      { glob: 'certificate.log', pattern: BODY_PATTERN, regex: true },
      viewer,
    );
    const texts = (dataOf(result).matches as Match[]).map((match) => match.text);
    expect(texts).toEqual([...CERTIFICATE_BODY].reverse());
  });

  it('attack: PEM key body is redacted when max_lines stops the search before it reaches the BEGIN line', async () => {
    const matches = await search('straddle.log', BODY_PATTERN, { max_lines: 1 });
    expect(matches).toEqual([expect.objectContaining({ text: REDACTED })]);
  });
});
