// The alerts bench's baseline: a plain node:http server that reads each webhook body whole and JSON.parses it,
// nothing more. The bench runs it as plain JavaScript (receiver-process.ts strips the types once), so its RSS is
// node's and this file's, with no loader's.
// Prints {"port":N} on stdout once it listens; PORT=0 picks a free one.
import { createServer } from 'node:http';

let parsed = 0;
const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    try {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      parsed += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    } catch {
      response.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"the body is not JSON"}');
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`,
  );
});
process.on('SIGTERM', () => {
  process.stderr.write(`plain receiver: ${parsed} bodies parsed\n`);
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
