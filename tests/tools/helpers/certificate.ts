// Test certificates made with openssl in a temp dir: a self-signed one, or a private CA and a server certificate it signed.
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
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

export interface PrivateAuthority {
  /** The authority's certificate (PEM), and where it is on disk, for NODE_EXTRA_CA_CERTS. */
  ca: string;
  caPath: string;
  /** A server certificate for localhost and 127.0.0.1 that this authority signed. */
  server: TestCertificate;
}

/** A private certificate authority and a server certificate it signed, as a company's internal CA gives. */
export async function makePrivateAuthority(dir: string, days = 30): Promise<PrivateAuthority> {
  const run = (args: string[]) => promisify(execFile)('openssl', args);
  const file = (name: string) => join(dir, name);
  await run([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=opsbot test private CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
    '-days',
    String(days),
    '-keyout',
    file('ca-key.pem'),
    '-out',
    file('ca.pem'),
  ]);
  await run([
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=localhost',
    '-keyout',
    file('server-key.pem'),
    '-out',
    file('server.csr'),
  ]);
  await writeFile(file('server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  await run([
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca-key.pem'),
    '-CAcreateserial',
    '-days',
    String(days),
    '-extfile',
    file('server.ext'),
    '-out',
    file('server.pem'),
  ]);
  return {
    ca: await readFile(file('ca.pem'), 'utf8'),
    caPath: file('ca.pem'),
    server: {
      key: await readFile(file('server-key.pem'), 'utf8'),
      cert: await readFile(file('server.pem'), 'utf8'),
    },
  };
}
