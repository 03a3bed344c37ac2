// The kernel as a service: built when the bot is composed; stopping it pauses runs at their next step.
import type { Kernel } from '../../agent/kernel.js';
import type { Service } from './service.js';

export function kernelService(kernel: Pick<Kernel, 'shutdown'>): Service {
  return {
    name: 'kernel',
    async start() {},
    stop: () => kernel.shutdown(),
  };
}
