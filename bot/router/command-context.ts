// What a router command is answered with: the kernel, the settings, who asked and where, and the time.
import type { Conversation } from '../../agent/conversation.js';
import type { Kernel } from '../../agent/kernel.js';
import type { Principal } from '../../agent/principal.js';
import type { PatrolControl } from '../../scheduled/patrol-control.js';
import type { Settings } from '../config/settings-schema.js';

export interface CommandContext {
  kernel: Kernel;
  settings: Settings;
  principal: Principal;
  conversation: Conversation;
  /** The slash command people type, for help text. */
  slashCommand: string;
  now: number;
  /** Patrols running in this process, for `patrol …`. */
  patrols?: PatrolControl;
}
