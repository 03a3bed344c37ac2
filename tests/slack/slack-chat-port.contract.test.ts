// The Slack ChatPort passes the shared ChatPort contract, read back from what the fake Web API recorded.
import { ManualClock } from '../../agent/clock.js';
import { silentLogger } from '../../agent/logger.js';
import { SlackChatPort } from '../../bot/slack/slack-chat-port.js';
import { SlackDelivery } from '../../bot/slack/slack-delivery.js';
import { createSlackWebClient } from '../../bot/slack/slack-web-client.js';
import { runChatPortContract } from '../chat-port-contract.js';
import { startFakeSlackApi } from '../fakes/slack/fake-slack-api.js';
import { renderSlackMessage } from '../fakes/slack/render-slack-message.js';

runChatPortContract('slack', async () => {
  const api = await startFakeSlackApi();
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0));
  const client = createSlackWebClient({ token: 'xoxb-test', apiUrl: api.apiUrl, logger: silentLogger });
  const port = new SlackChatPort({
    delivery: new SlackDelivery({ client, clock, logger: silentLogger }),
    clock,
    logger: silentLogger,
  });
  return {
    port,
    channel: { platform: 'slack', channelId: 'C0OPS', channelName: 'ops' },
    async inspect(ref) {
      const message = api.message(ref.conversation.channelId, ref.messageId);
      if (!message) throw new Error(`the fake has no message ${ref.messageId}`);
      return renderSlackMessage(message);
    },
    async messages(conversation) {
      const shown = conversation.threadId
        ? api.thread(conversation.channelId, conversation.threadId)
        : api.topLevel(conversation.channelId);
      return shown.map(renderSlackMessage);
    },
    close: () => api.close(),
  };
});
