// How an expectation matches one value: a literal (deep-equal for objects, equality otherwise), or
// `{ contains | matches }` for text. Judged by matchers.ts.
import { z } from 'zod';

export const ValueMatcherSchema = z.union([
  z.object({ contains: z.string() }).strict(),
  z.object({ matches: z.string() }).strict(),
  z.unknown(),
]);
