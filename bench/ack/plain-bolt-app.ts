// The floor for the ack bench: a plain Bolt app on HTTP with a listener that does nothing, as a Slack app with no
// work of its own would be. Run in its own process by run-ack.ts; PORT, SLACK_SIGNING_SECRET, SLACK_API_URL.
import bolt from '@slack/bolt';

const { App, HTTPReceiver } = bolt;
const receiver = new HTTPReceiver({
  signingSecret: process.env.SLACK_SIGNING_SECRET ?? '',
  endpoints: '/slack/events',
  processBeforeResponse: false,
  customRoutes: [{ path: '/healthz', method: ['GET'], handler: (_request, response) => response.end('ok') }],
});
const app = new App({
  token: 'xoxb-bench',
  botId: 'B0BENCH',
  botUserId: 'U0BOT',
  receiver,
  clientOptions: { slackApiUrl: `${process.env.SLACK_API_URL}/` },
});
app.event('app_mention', async () => {});
await app.start(Number(process.env.PORT));
