// What a results file says about the run that made it: the mode, the model, the engine runs started with, and the
// versions of the prompts (each prompt file with a hash of its text), so two reports can be compared knowing what
// changed between them.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { PROMPTS, type PromptName, renderPrompt } from '../agent/prompts.js';

export const ReportMetaSchema = z.object({
  /** `scripted`, or `live <model>`. */
  mode: z.string(),
  /** The model that answered: the live model, or the scripted fake's name. */
  model: z.string(),
  /** The engine tasks started with (`--engine`), or `default` (the kernel's own choice). */
  engine: z.string(),
  /** Each prompt as `<file>@<hash of its text>`. */
  prompts: z.record(z.string(), z.string()),
  /** Scripted: how late each model answer was made (`--model-delay`), when it was. */
  modelDelayMs: z.number().optional(),
});
export type ReportMeta = z.infer<typeof ReportMetaSchema>;

export function promptVersions(): Record<string, string> {
  return Object.fromEntries(
    (Object.keys(PROMPTS) as PromptName[]).map((name) => {
      const hash = createHash('sha256').update(renderPrompt(name)).digest('hex').slice(0, 12);
      return [name, `${PROMPTS[name]}@${hash}`];
    }),
  );
}
