// Attack: a configured command prints a private key so that the part shown lacks its BEGIN line, or arrives
// in pieces. The step executor redacts the whole result with redactValue, as here.
import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redactor } from '../../agent/redaction.js';
import { commandTool } from '../tools/helpers/command-settings.js';
import { makeTempDir, removeTempDirs } from '../tools/helpers/temp-dir.js';
import { callTool } from '../tools/helpers/tool-context.js';

const PEM = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();
const BODY = PEM.trimEnd().split('\n').slice(1, -1);
const redactor = new Redactor();
let dir: string;

beforeAll(async () => {
  dir = await makeTempDir();
  await writeFile(join(dir, 'key.pem'), PEM);
});
afterAll(removeTempDirs);

async function runScript(name: string, lines: string[], outputLimitBytes = 64 * 1024) {
  const script = join(dir, `${name}.sh`);
  await writeFile(script, lines.join('\n'));
  const tool = await commandTool(
    name,
    { description: 'Prints a key in an awkward way, for testing.', argv: ['/usr/bin/sh', script] },
    { allowed: ['/usr/bin/sh'], outputLimitBytes, cwd: dir },
  );
  const result = await callTool(tool, {});
  return { raw: JSON.stringify(result), shown: JSON.stringify(redactor.redactValue(result)) };
}

describe('attack: key material in command output', () => {
  it('attack: a key block whose BEGIN line was pushed out of the kept head by padding is redacted', async () => {
    const { raw, shown } = await runScript(
      'padded_key',
      ['i=0; while [ $i -lt 60 ]; do echo "padding line $i"; i=$((i+1)); done', 'cat key.pem'],
      1024,
    );
    // The tail kept some body lines and the END line, but not BEGIN.
    expect(raw).not.toContain('BEGIN PRIVATE KEY');
    expect(BODY.some((line) => raw.includes(line))).toBe(true);
    for (const line of BODY) expect(shown).not.toContain(line);
  });

  it('attack: a key block written in pieces across pipe chunks is redacted as one block', async () => {
    const { raw, shown } = await runScript('chunked_key', [
      'head -c 700 key.pem',
      'sleep 0.2',
      'tail -c +701 key.pem | head -c 600',
      'sleep 0.2',
      'tail -c +1301 key.pem',
    ]);
    expect(BODY.every((line) => raw.includes(line))).toBe(true);
    for (const line of BODY) expect(shown).not.toContain(line);
  });

  it('attack: key body lines printed without either marker line are redacted', async () => {
    const { raw, shown } = await runScript('body_only', ['sed -n 3,12p key.pem']);
    expect(raw).not.toContain('PRIVATE KEY');
    for (const line of BODY) expect(shown).not.toContain(line);
  });
});
