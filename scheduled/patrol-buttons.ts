// A report's buttons: Ack, Snooze 1h / 4h / 1d (the report's checks) and Run again. The reply is for the clicker.
import { parseDuration } from '../agent/policy/duration.js';
import type { PatrolButton } from './patrol-control.js';
import type { PatrolSteering, PatrolSteeringDeps } from './patrol-steering.js';

export class PatrolButtons {
  constructor(
    private readonly deps: PatrolSteeringDeps,
    private readonly steering: PatrolSteering,
  ) {}

  async act(button: PatrolButton): Promise<string> {
    const report = await this.deps.repository.report(button.target);
    if (!report)
      return 'This report is no longer kept, so its buttons do nothing. Use `patrol show <name>` for the patrol now.';
    switch (button.action) {
      case 'patrol_ack':
        return (await this.steering.ack(button.principal, report)).message;
      case 'patrol_snooze': {
        const ms = snoozeMs(button.value);
        if (ms === undefined) return 'That snooze length is not one I offer (1h, 4h or 1d).';
        return (await this.steering.snooze(button.principal, report.patrol, report.checkIds, ms, report))
          .message;
      }
      case 'patrol_run':
        return (await this.steering.run(button.principal, report.patrol)).message;
    }
  }
}

function snoozeMs(value: string | undefined): number | undefined {
  return value === '1h' || value === '4h' || value === '1d' ? parseDuration(value) : undefined;
}
