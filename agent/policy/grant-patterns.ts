// Grant patterns: the wider matches a tool declares, which an approver may pick when approving for a while.
// "app-services: any service in [api, worker]" covers restart_service for either service, with every other
// argument equal to the approved call's. Pure: which patterns a call may be granted under, and what one covers.
import { z } from 'zod';
import { stableJson } from '../stable-json.js';

const ScalarSchema = z.union([z.string(), z.number(), z.boolean()]);
type Scalar = z.infer<typeof ScalarSchema>;

/** A pattern's name: short, for a button id and a CLI flag. */
export const GrantPatternNameSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,23}$/, 'a name of at most 24 lowercase letters, digits, _ or -');

/** What a pattern widens: each named argument may take any of its listed values. */
export const GrantPatternArgsSchema = z
  .record(z.string().min(1), z.array(ScalarSchema).min(2).max(20))
  .refine((args) => Object.keys(args).length > 0, 'a pattern names at least one argument');

/** A tool's grant patterns, by name. */
export const GrantPatternsSchema = z.record(GrantPatternNameSchema, GrantPatternArgsSchema);
export type GrantPatterns = z.infer<typeof GrantPatternsSchema>;

/** A pattern as an approval offers it and a grant keeps it: its name and its widened arguments. */
export const GrantPatternSchema = z.object({ name: GrantPatternNameSchema, args: GrantPatternArgsSchema });
export type GrantPattern = z.infer<typeof GrantPatternSchema>;

const same = (left: unknown, right: unknown) => stableJson(left) === stableJson(right);
const listed = (values: readonly Scalar[], value: unknown) => values.some((allowed) => same(allowed, value));

/**
 * The patterns an approver may pick for this call: those whose every widened argument already holds one of its
 * values in the call, so a grant never covers the approved call's own arguments less than once.
 */
export function patternsFor(
  patterns: GrantPatterns | undefined,
  args: Record<string, unknown>,
): GrantPattern[] {
  return Object.entries(patterns ?? {})
    .filter(([, widened]) => Object.entries(widened).every(([name, values]) => listed(values, args[name])))
    .map(([name, widened]) => ({ name, args: widened }));
}

/**
 * Whether a call's arguments are covered: equal to the approved ones, except that an argument the pattern widens
 * may take any of its values. An argument the approved call did not have must be absent too.
 */
export function argumentsCovered(
  approved: Record<string, unknown>,
  call: Record<string, unknown>,
  pattern: GrantPattern | undefined,
): boolean {
  if (!pattern) return same(approved, call);
  const names = new Set([...Object.keys(approved), ...Object.keys(call)]);
  for (const name of names) {
    const widened = pattern.args[name];
    if (widened ? !listed(widened, call[name]) : !sameArgument(approved, call, name)) return false;
  }
  return true;
}

function sameArgument(approved: Record<string, unknown>, call: Record<string, unknown>, name: string) {
  const given = (args: Record<string, unknown>) => Object.hasOwn(args, name) && args[name] !== undefined;
  return given(approved) === given(call) && same(approved[name], call[name]);
}

/** "any service in api, worker; any region in eu, us": what a pattern lets vary, in words. */
export function describePattern(pattern: GrantPattern): string {
  return Object.entries(pattern.args)
    .map(([name, values]) => `any ${name} in ${values.map((value) => String(value)).join(', ')}`)
    .join('; ');
}
