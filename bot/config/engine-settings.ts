// The `engines:` section of opsbot.yaml: which model engine a task runs on, by default and per channel.
import { z } from 'zod';
import type { Conversation } from '../../agent/conversation.js';
import { isThisChannel } from '../../agent/policy/channel-scope.js';
import { type ModelEngineKind, ModelEngineKindSchema } from '../../agent/run-engine-kind.js';

const EngineNameSchema = ModelEngineKindSchema.describe('`react` or `plan`.');

export const EngineSettingsSchema = z
  .strictObject({
    default: EngineNameSchema.default('react').describe(
      'The model engine a task runs on: `react`, the tool loop (a model call per step, the model choosing each ' +
        'next call from the last results), or `plan`, plan and execute (one call plans every tool call, the ' +
        'plan runs level by level, one call answers: fewer model calls, for investigations). Without a model, ' +
        'typed commands run on the command engine either way.',
    ),
    channels: z
      .record(z.string(), EngineNameSchema)
      .default({})
      .describe(
        "The model engine per channel, keyed by channel id or #name (quote '#name' keys in YAML); " +
          'channels not named here use `default`.',
      ),
  })
  .prefault({});
export type EngineSettings = z.output<typeof EngineSettingsSchema>;

/** The model engine a task in this conversation runs on: its channel's, or the default. */
export function modelEngineFor(settings: EngineSettings, conversation: Conversation): ModelEngineKind {
  for (const [reference, engine] of Object.entries(settings.channels))
    if (isThisChannel(reference, { conversation })) return engine;
  return settings.default;
}
