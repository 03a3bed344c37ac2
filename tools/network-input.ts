// Input fields shared by the network checks: a host and a port, validated before any lookup.
import { z } from 'zod';

export const hostField = z
  .string()
  .min(1)
  .max(253)
  .regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.:-]+)$/, 'a host name or an IP address')
  .refine((host) => !host.startsWith('-'), 'must not start with "-"')
  .describe('Host name or IP address, e.g. "api.internal", "10.0.0.5" or "::1".');

export function portField(description: string) {
  return z.number().int().min(1).max(65_535).describe(description);
}
