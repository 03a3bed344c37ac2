// The playground as a service: its page, API and ChatPort on the shared HTTP server.
import type { ChatPortByPlatform } from '../chat-port-by-platform.js';
import {
  type Playground,
  type StartPlaygroundOptions,
  startPlayground,
} from '../playground/start-playground.js';
import type { Service } from './service.js';

export class PlaygroundService implements Service {
  readonly name = 'playground';
  private playground: Playground | undefined;

  constructor(private readonly options: StartPlaygroundOptions & { chat: ChatPortByPlatform }) {}

  async start(): Promise<void> {
    // The playground adds its own /readyz check, with the number of browser streams open.
    this.playground = await startPlayground(this.options);
    this.options.chat.register('playground', this.playground.port);
  }

  /** Ends the browser streams and waits for the events in progress; the HTTP server has stopped by then. */
  async stop(): Promise<void> {
    await this.playground?.stop();
  }
}
