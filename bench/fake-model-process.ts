// The fake model as its own process, so its CPU never counts in the bench's process.cpuUsage().
// Start with `node --import tsx bench/fake-model-process.ts`: prints {"port":N} on stdout, then answers
// "count" lines on stdin with {"requests":N}, and exits when stdin closes.
import { createInterface } from 'node:readline';
import { startFakeOpenAIServer } from '../tests/fakes/openai-server.js';
import { scriptedAnswer } from './scripted-run.js';

const fake = await startFakeOpenAIServer({ record: false });
fake.respond(scriptedAnswer);
process.stdout.write(`${JSON.stringify({ port: new URL(fake.baseURL).port })}\n`);

const commands = createInterface({ input: process.stdin });
commands.on('line', (line) => {
  if (line.trim() === 'count') process.stdout.write(`${JSON.stringify({ requests: fake.requestCount })}\n`);
});
commands.on('close', () => {
  void fake.close().then(() => process.exit(0));
});
