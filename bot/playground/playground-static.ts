// Serves the page's own files from public/, read on each request so editing the CSS needs no restart.
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';

const PUBLIC_DIR = fileURLToPath(new URL('./public/', import.meta.url));

/** Only these names are served: a path from the URL never reaches the file system. */
const FILES: Readonly<Record<string, string>> = {
  '/': 'index.html',
  '/index.html': 'index.html',
  '/app.css': 'app.css',
  '/messages.css': 'messages.css',
  '/cards.css': 'cards.css',
  '/narrow.css': 'narrow.css',
  '/app.js': 'app.js',
  '/controls.js': 'controls.js',
  '/api.js': 'api.js',
  '/view.js': 'view.js',
  '/render.js': 'render.js',
  '/markdown.js': 'markdown.js',
  '/tables.js': 'tables.js',
  '/thread-order.js': 'thread-order.js',
  '/favicon.svg': 'favicon.svg',
};

const TYPES: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  svg: 'image/svg+xml',
};

/**
 * Nothing inline runs: script and style come from this server only. Text from the model is escaped anyway; this
 * is the second line, should an escape ever be missed.
 */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'; object-src 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

export function isStaticPath(path: string): boolean {
  return Object.hasOwn(FILES, path);
}

export async function serveStatic(path: string, response: ServerResponse): Promise<void> {
  const file = FILES[path]!;
  const body = await readFile(`${PUBLIC_DIR}${file}`);
  response.writeHead(200, {
    'content-type': TYPES[file.slice(file.lastIndexOf('.') + 1)] ?? 'application/octet-stream',
    'content-length': body.length,
    'cache-control': 'no-cache',
    ...SECURITY_HEADERS,
  });
  response.end(body);
}
