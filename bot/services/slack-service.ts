// Slack as a service: checks the token, connects (Socket Mode) or mounts /slack/events, registers its ChatPort.
import type { ChatPortByPlatform } from '../chat-port-by-platform.js';
import type { HttpServer } from '../http/http-server.js';
import { type SlackAdapter, type StartSlackOptions, startSlack } from '../slack/index.js';
import type { Service, ServiceReadiness } from './service.js';

export interface SlackServiceOptions {
  slack: StartSlackOptions;
  chat: ChatPortByPlatform;
  http: HttpServer;
}

export class SlackService implements Service {
  readonly name = 'slack';
  /** Set once started: which mode, and which bot user. */
  adapter: SlackAdapter | undefined;

  constructor(private readonly options: SlackServiceOptions) {}

  async start(): Promise<void> {
    const adapter = await startSlack(this.options.slack);
    this.adapter = adapter;
    this.options.chat.register('slack', adapter.port);
    if (adapter.mode === 'http') {
      this.options.http.mount('/slack/events', (request, response) =>
        adapter.requestListener(request, response),
      );
    }
  }

  /** Stops taking events; handling already under way continues, for the kernel's shutdown to finish. */
  async stop(): Promise<void> {
    await this.adapter?.stop();
  }

  // The token was proven by auth.test at start; readiness says which mode and bot user are in use.
  async readiness(): Promise<ServiceReadiness> {
    if (!this.adapter) return { ok: false, detail: 'not started' };
    return { ok: true, detail: `${this.adapter.mode} mode as ${this.adapter.botUserId}` };
  }
}
