// A self-signed certificate for localhost and 127.0.0.1, made with openssl in a temp dir.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface TestCertificate {
  key: string;
  cert: string;
}

export async function makeSelfSignedCertificate(dir: string, days = 30): Promise<TestCertificate> {
  const keyPath = join(dir, 'key.pem');
  const certPath = join(dir, 'cert.pem');
  await promisify(execFile)('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=localhost',
    '-addext',
    'subjectAltName=DNS:localhost,IP:127.0.0.1',
    '-days',
    String(days),
    '-keyout',
    keyPath,
    '-out',
    certPath,
  ]);
  return { key: await readFile(keyPath, 'utf8'), cert: await readFile(certPath, 'utf8') };
}
