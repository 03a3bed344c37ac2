// A TCP server on 127.0.0.1 that accepts every connection and never writes a byte: the most common outage shape.
import { createServer, type Socket } from 'node:net';

export interface HungServer {
  port: number;
  /** Connections it accepted so far. */
  accepted(): number;
  close(): Promise<void>;
}

export async function startHungServer(): Promise<HungServer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the hung server has no port');
  return {
    port: address.port,
    accepted: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
