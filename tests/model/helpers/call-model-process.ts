// Run by extra-ca-certs.test.ts as a child process: model calls with the environment a person gives opsbot
// (NODE_EXTRA_CA_CERTS is read by Node only at start-up), one JSON line per call.
// Usage: node --import tsx call-model-process.ts <baseURL> [<proxy URL or "direct">]...

import { errorMessage } from '../../../agent/errors.js';
import { createOpenAIModelClient } from '../../../agent/model/model-client.js';

const [baseURL, ...routes] = process.argv.slice(2);
for (const route of routes.length > 0 ? routes : ['direct']) {
  // The client reads the proxy variables from process.env when it is made, as in production.
  if (route === 'direct') delete process.env.HTTPS_PROXY;
  else process.env.HTTPS_PROXY = route;
  const client = createOpenAIModelClient({ baseURL, model: 'fake-model', timeoutMs: 5_000, maxRetries: 0 });
  try {
    const reply = await client.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [] });
    console.log(JSON.stringify({ route, content: reply.content }));
  } catch (error) {
    console.log(JSON.stringify({ route, error: errorMessage(error) }));
  }
}
