// The in-process RunQueue against the shared contract.
import { InProcessRunQueue } from '../../agent/in-process-run-queue.js';
import { runRunQueueContract } from './run-queue-contract.js';

runRunQueueContract('in-process', async () => ({ queue: new InProcessRunQueue() }));
