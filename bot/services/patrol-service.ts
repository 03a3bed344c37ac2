// Patrols as a service: started after the chat adapters, so it knows which platforms a patrol can post to.
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../agent/clock.js';
import type { Logger } from '../../agent/logger.js';
import { PatrolService } from '../../scheduled/patrol-service.js';
import type { ChatPortByPlatform } from '../chat-port-by-platform.js';
import type { Opsbot } from '../compose.js';
import type { Service } from './service.js';

/**
 * The patrols of this process, or undefined when none are configured. `schedule` is false on a gateway: it steers
 * patrols (buttons, `patrol …` commands, manual runs whose checks the workers make) and runs no clock.
 */
export function createPatrols(
  opsbot: Opsbot,
  chat: ChatPortByPlatform,
  logger: Logger,
  clock: Clock,
  { schedule, selfUrl }: { schedule: boolean; selfUrl(): string },
) {
  const { settings } = opsbot;
  if (Object.keys(settings.patrols).length === 0) return undefined;
  return new PatrolService({
    patrols: settings.patrols,
    kernel: opsbot.kernel,
    store: opsbot.store,
    chat,
    platformRunning: (platform) => chat.has(platform),
    permissions: settings.permissions,
    audit: opsbot.audit,
    clock,
    logger,
    keepHistoryMs: settings.limits.patrol_history,
    owner: `patrols_${randomBytes(6).toString('hex')}`,
    schedule,
    selfUrl,
  });
}

export function patrolService(patrols: PatrolService): Service {
  return {
    name: 'patrols',
    start: () => patrols.start(),
    stop: () => patrols.stop(),
    async readiness() {
      const running = patrols.running();
      if (running.length === 0) return { ok: true, detail: 'none running here' };
      return {
        ok: true,
        detail: patrols.scheduling
          ? `running ${running.join(', ')}`
          : `steering ${running.join(', ')} (the workers run their schedules)`,
      };
    },
  };
}
