// The fake model as its own process, so its CPU never counts in the bench's process.cpuUsage().
// Start with `node --import tsx bench/fake-model-process.ts`: prints {"port":N} on stdout, then answers
// "count" lines on stdin with {"requests":N}, and exits when stdin closes. `--scale-delay-ms N` plays the scale
// bench's conversation instead (bench/scale/scale-model.ts), each answer N ms late; `--delay-ms N` answers the
// kernel bench's script N ms late (a model that takes that long).
import { createInterface } from 'node:readline';
import { startFakeOpenAIServer } from '../tests/fakes/openai-server.js';
import { scaleAnswer } from './scale/scale-model.js';
import { scriptedAnswer } from './scripted-run.js';

const fake = await startFakeOpenAIServer({ record: false });
const scaleFlag = process.argv.indexOf('--scale-delay-ms');
const delayFlag = process.argv.indexOf('--delay-ms');
const delayMs = delayFlag >= 0 ? Number(process.argv[delayFlag + 1]) : 0;
fake.respond(
  scaleFlag >= 0
    ? scaleAnswer(Number(process.argv[scaleFlag + 1]))
    : (request, index) => scriptedAnswer(request, index, delayMs),
);
process.stdout.write(`${JSON.stringify({ port: new URL(fake.baseURL).port })}\n`);

const commands = createInterface({ input: process.stdin });
commands.on('line', (line) => {
  if (line.trim() === 'count') process.stdout.write(`${JSON.stringify({ requests: fake.requestCount })}\n`);
});
commands.on('close', () => {
  void fake.close().then(() => process.exit(0));
});
