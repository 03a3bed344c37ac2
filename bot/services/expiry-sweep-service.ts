// The kernel's expiry sweep as a service: questions and approvals nobody answered close at their expiry.
import type { Kernel } from '../../agent/kernel.js';
import type { Service } from './service.js';

export function expirySweepService(kernel: Pick<Kernel, 'expirySweep'>): Service {
  const sweep = kernel.expirySweep();
  return {
    name: 'expiry sweep',
    async start() {
      sweep.start();
    },
    stop: () => sweep.stop(),
  };
}
