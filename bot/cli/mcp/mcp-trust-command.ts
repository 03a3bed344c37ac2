// `opsbot mcp trust <server> [tool]`: an admin accepts tools' definitions as the server lists them now (every
// changed or new tool, or the one named), written as their pins and audited; anyone else is refused, and audited.

import { systemClock } from '../../../agent/clock.js';
import { type AuditEntryInput, AuditLog, auditActor } from '../../../agent/policy/audit-log.js';
import type { Principal } from '../../../agent/principal.js';
import type { Store } from '../../../agent/store/store.js';
import { readableUtc } from '../../../agent/utc-time.js';
import { McpPinRepository } from '../../../tools/mcp/mcp-pin-repository.js';
import { definitionHash } from '../../../tools/mcp/mcp-pins.js';
import { mcpRegistryName } from '../../../tools/mcp/mcp-tool-names.js';
import type { McpToolReview } from '../../../tools/mcp/mcp-tool-review.js';
import type { CliContext } from '../cli-context.js';
import type { CliIo } from '../cli-io.js';
import { EXIT } from '../run-task.js';
import { isAdmin, notAdminRefusal } from './mcp-admins.js';
import { inspectOne } from './mcp-inspection.js';
import { standingText } from './mcp-list-view.js';

/**
 * The audit log has no kind of its own for MCP pins yet (its kinds live in agent/): a trust is recorded as an
 * admin's decision, a refused one as a refusal, each marked by its outcome.
 */
const TRUSTED = { kind: 'decision', outcome: 'mcp_trusted' } as const;
const REFUSED = { kind: 'refusal', outcome: 'mcp_trust_refused' } as const;

export interface TrustRequest {
  server: string;
  tool: string | undefined;
  principal: Principal;
}

/** Exit 0 when trusted or nothing needed it; 1 when refused, the server is down, or the tool is not offered. */
export async function trustCommand(
  context: CliContext,
  io: CliIo,
  store: Store,
  request: TrustRequest,
): Promise<number> {
  const { server, tool, principal } = request;
  const permissions = context.loaded.settings.permissions;
  const audit = new AuditLog(store);
  const target = tool === undefined ? `mcp:${server}` : mcpRegistryName(server, tool);
  if (!isAdmin(permissions, principal)) {
    const refusal = notAdminRefusal(permissions, principal, 'trust MCP tool definitions');
    await audit.record({ ...REFUSED, actor: auditActor(principal), tool: target, reason: refusal });
    io.stderr.write(`opsbot: ${refusal}\n`);
    return EXIT.failed;
  }
  const inspection = await inspectOne(context, io, store, server, tool);
  if (typeof inspection === 'number') return inspection;
  const chosen = inspection.reviews.filter((review) => tool === undefined || review.tool === tool);
  const notOffered = chosen.find(
    (review) => review.standing.kind === 'left_out' || review.standing.kind.startsWith('refused'),
  );
  if (tool !== undefined && notOffered) {
    io.stderr.write(
      `opsbot: ${notOffered.name} is not offered, so there is nothing to trust: ${standingText(notOffered.standing)}\n`,
    );
    return EXIT.failed;
  }
  // A tool not yet pinned at first sight is pinned now, by this admin, as reviewed.
  const toTrust = chosen.filter((review) =>
    ['changed', 'new', 'trusted_when_seen'].includes(review.standing.kind),
  );
  const definitions = toTrust.flatMap((review) => (review.definition ? [review.definition] : []));
  const by = auditActor(principal).key;
  const written = new Set(await new McpPinRepository(store, systemClock).trust(server, definitions, by));
  const trusted = toTrust.filter((review) => written.has(review.tool));
  for (const review of trusted) await audit.record(trustEntry(review, principal));
  if (trusted.length === 0) {
    const what =
      tool === undefined
        ? `every offered tool of ${server} is trusted as listed`
        : `${target} is trusted as listed`;
    io.stdout.write(`Nothing to trust: ${what}.\n`);
    return EXIT.ok;
  }
  const lines = trusted.map((review) => `  ${review.name}: ${whatWasTrusted(review)}`);
  io.stdout.write(
    `${context.redactor.redact(`Trusted as listed now, by ${principal.displayName}:\n${lines.join('\n')}`)}\n`,
  );
  return EXIT.ok;
}

function whatWasTrusted(review: McpToolReview): string {
  const { standing, pin } = review;
  if (standing.kind === 'changed') {
    const fields = standing.fields.map((field) => (field === 'inputSchema' ? 'input schema' : field));
    const before = pin ? `, trusted by ${pin.trustedBy} on ${readableUtc(pin.trustedAt)} before` : '';
    return `changed (${fields.join(', ')})${before}`;
  }
  if (standing.kind === 'new') return `new on ${review.server}`;
  return 'pinned for the first time';
}

function trustEntry(review: McpToolReview, principal: Principal): AuditEntryInput {
  return {
    ...TRUSTED,
    actor: auditActor(principal),
    tool: review.name,
    args: {
      server: review.server,
      tool: review.tool,
      ...(review.pin ? { previousHash: review.pin.hash } : {}),
      ...(review.definition ? { hash: definitionHash(review.definition) } : {}),
    },
    reason: whatWasTrusted(review),
  };
}
