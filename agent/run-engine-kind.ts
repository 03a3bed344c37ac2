// Which engine steps a run: the model's tool loop, or typed commands.
import { z } from 'zod';

export const EngineKindSchema = z.enum(['react', 'command']);
export type EngineKind = z.infer<typeof EngineKindSchema>;
