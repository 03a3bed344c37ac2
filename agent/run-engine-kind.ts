// Which engine steps a run: the model's tool loop, typed commands, or a fixed set of checks (patrols).
import { z } from 'zod';

export const EngineKindSchema = z.enum(['react', 'command', 'checks']);
export type EngineKind = z.infer<typeof EngineKindSchema>;
