// The one HTTP server as a service: it listens once all it serves is mounted, and is the first to stop.
import { errorMessage } from '../../agent/errors.js';
import type { HttpServer } from '../http/http-server.js';
import type { Service } from './service.js';

export function httpService(http: HttpServer, address: { HOST: string; PORT: number }): Service {
  return {
    name: 'HTTP server',
    async start() {
      try {
        await http.listen();
      } catch (error) {
        throw new Error(`Cannot listen on ${address.HOST}:${address.PORT}: ${errorMessage(error)}`, {
          cause: error,
        });
      }
    },
    stop: () => http.close(),
  };
}
