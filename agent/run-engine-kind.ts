// Which engine steps a run: the model's tool loop, the model's plan, typed commands, or a fixed set of checks.
import { z } from 'zod';

export const EngineKindSchema = z.enum(['react', 'plan', 'command', 'checks']);
export type EngineKind = z.infer<typeof EngineKindSchema>;

/** The engines that ask a model what to do; a run on one needs a model configured. */
export const MODEL_ENGINES = ['react', 'plan'] as const satisfies readonly EngineKind[];
export type ModelEngineKind = (typeof MODEL_ENGINES)[number];
export const ModelEngineKindSchema = z.enum(MODEL_ENGINES);

export function isModelEngine(kind: EngineKind): kind is ModelEngineKind {
  return (MODEL_ENGINES as readonly EngineKind[]).includes(kind);
}
