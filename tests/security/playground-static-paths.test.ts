// Attacks on the playground's static file server over raw HTTP (no client-side normalisation of the path):
// `/../`, encoded traversal, absolute and backslash paths, NUL bytes. Only the page's own files are served.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PlaygroundRig, startPlaygroundRig } from './helpers/playground-rig.js';

let rig: PlaygroundRig;

beforeAll(async () => {
  rig = await startPlaygroundRig();
});

afterAll(async () => rig?.stop());

/** Sends `path` byte for byte as the request target, as a hostile client would. */
function rawGet(path: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(rig.url);
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: hostname, port, path, method: 'GET' }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

const FILE_CONTENTS = [/root:x:0:0/, /"name":\s*"opsbot"/, /import .* from/, /createPlaygroundHandler/];

describe('the playground serves its own files and nothing else', () => {
  const attacks: [string, string][] = [
    ['/../../../../etc/passwd', 'a /../ traversal'],
    ['/app.js/../../../../etc/passwd', 'a traversal after a served name'],
    ['/%2e%2e/%2e%2e/%2e%2e/etc/passwd', 'percent-encoded dots'],
    ['/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd', 'percent-encoded slashes'],
    ['/%252e%252e/%252e%252e/etc/passwd', 'double-encoded dots'],
    ['/..%c0%af..%c0%afetc/passwd', 'an overlong UTF-8 slash'],
    ['/..\\..\\..\\etc\\passwd', 'backslashes'],
    ['//etc/passwd', 'an absolute path after the slash'],
    ['http://127.0.0.1/../../etc/passwd', 'an absolute-form request target'],
    ['/app.js%00.html', 'a NUL byte after a served name'],
    ['/../package.json', "the repository's package.json"],
    ['/../playground-api.ts', 'the server source beside public/'],
    ['/../../../../proc/self/environ', "the process's environment"],
    ['/index.html/', 'a served name with a trailing slash'],
    ['/APP.JS', 'a served name in other case'],
  ];

  for (const [path, attack] of attacks) {
    it(`attack: GET ${JSON.stringify(path)} (${attack}) serves no file`, async () => {
      const answer = await rawGet(path);
      expect([400, 404]).toContain(answer.status);
      for (const content of FILE_CONTENTS) expect(answer.body).not.toMatch(content);
      expect(answer.body).not.toContain('OPSBOT_');
    });
  }

  it('the page itself is still served, with its content security policy', async () => {
    const answer = await rawGet('/app.js');
    expect(answer.status).toBe(200);
    const page = await fetch(`${rig.url}/`);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
  });
});
