// What the chat router and the CLI need from patrols: report buttons and the `patrol …` commands.
import type { Principal } from '../agent/principal.js';

export interface PatrolButton {
  action: 'patrol_ack' | 'patrol_snooze' | 'patrol_run';
  /** The report's id, from the button. */
  target: string;
  /** For a snooze: 1h, 4h or 1d. */
  value?: string;
  principal: Principal;
}

export interface PatrolControl {
  /** A click on a report's button, checked against the person's role and audited; the reply is for them alone. */
  act(button: PatrolButton): Promise<string>;
  /** `patrol list|show|run|pause|resume|snooze|history …`; the reply is for the person who asked. */
  command(args: string, principal: Principal): Promise<string>;
}
