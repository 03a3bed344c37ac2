// Approval grants: an approver's "approved for a while", kept in the Store until it ends, so that the same tool,
// for the same requester, in the same channel, with the same arguments (or within the pattern the approver
// picked), runs again without a new card.
import { z } from 'zod';
import type { Clock } from '../clock.js';
import type { Conversation } from '../conversation.js';
import { PlatformSchema } from '../principal.js';
import { randomHex } from '../random-id.js';
import { stableJson } from '../stable-json.js';
import type { Store } from '../store/store.js';
import { storeKeys } from '../store/store-keys.js';
import { argumentsCovered, GrantPatternSchema } from './grant-patterns.js';

const PersonSchema = z.object({ key: z.string(), displayName: z.string() });

export const GrantSchema = z.object({
  id: z.string().regex(/^grt_[0-9a-f]{16}$/),
  tool: z.string(),
  requester: PersonSchema,
  channel: z.object({
    platform: PlatformSchema,
    channelId: z.string().min(1),
    channelName: z.string().optional(),
  }),
  /** The approved arguments as canonical JSON (stable-json.ts): a call matches with equal arguments. */
  args: z.string(),
  /** The pattern the approver picked, if any: the arguments it names may then take any of its values. */
  pattern: GrantPatternSchema.optional(),
  /** The same arguments redacted, for listing the grant to people. */
  displayArgs: z.unknown().optional(),
  grantedBy: PersonSchema,
  grantedAt: z.number(),
  until: z.number(),
  /** The approval the grant was made with; a call run under the grant names it as its approval. */
  approvalId: z.string(),
});
export type Grant = z.infer<typeof GrantSchema>;

/** What a grant must match: the tool, the requester's key, the channel, and the arguments. */
export interface GrantMatch {
  tool: string;
  requester: string;
  conversation: Pick<Conversation, 'platform' | 'channelId'>;
  args: Record<string, unknown>;
}

export function newGrantId(): string {
  return `grt_${randomHex(8)}`;
}

function setOf(grant: Pick<Grant, 'tool' | 'requester' | 'channel'>): string {
  return storeKeys.grantsFor({
    tool: grant.tool,
    requester: grant.requester.key,
    platform: grant.channel.platform,
    channelId: grant.channel.channelId,
  });
}

/** Whether the grant covers a call with these arguments: equal to the approved ones, or within its pattern. */
export function covers(grant: Pick<Grant, 'args' | 'pattern'>, args: Record<string, unknown>): boolean {
  if (!grant.pattern) return grant.args === stableJson(args);
  return argumentsCovered(JSON.parse(grant.args) as Record<string, unknown>, args, grant.pattern);
}

export class ApprovalGrants {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  async create(grant: Grant): Promise<void> {
    const parsed = GrantSchema.parse(grant);
    const lifeMs = parsed.until - this.clock.now();
    if (lifeMs <= 0) return;
    await this.store.writeAll([
      { kind: 'set', key: storeKeys.grant(parsed.id), value: parsed, ttlMs: lifeMs },
      { kind: 'addToSet', set: setOf(parsed), member: parsed.id },
      { kind: 'addToSet', set: storeKeys.liveGrants, member: parsed.id },
    ]);
  }

  /** The live grant covering this call, if any: one read of the set, then of its (few) grants. */
  async find(match: GrantMatch): Promise<Grant | undefined> {
    const set = storeKeys.grantsFor({
      tool: match.tool,
      requester: match.requester,
      platform: match.conversation.platform,
      channelId: match.conversation.channelId,
    });
    for (const id of await this.store.members(set)) {
      const grant = await this.read(id);
      if (!grant) {
        await this.forget(id, set);
        continue;
      }
      if (covers(grant, match.args)) return grant;
    }
    return undefined;
  }

  /** A grant that has not ended; the clock is checked too, not only the Store's TTL. */
  async read(grantId: string): Promise<Grant | undefined> {
    if (!/^grt_[0-9a-f]{16}$/.test(grantId)) return undefined;
    const parsed = GrantSchema.safeParse(await this.store.get(storeKeys.grant(grantId)));
    if (!parsed.success || parsed.data.until <= this.clock.now()) return undefined;
    return parsed.data;
  }

  /** Every live grant, the soonest to end first. */
  async list(): Promise<Grant[]> {
    const live: Grant[] = [];
    for (const id of await this.store.members(storeKeys.liveGrants)) {
      const grant = await this.read(id);
      if (grant) live.push(grant);
      else await this.store.removeFromSet(storeKeys.liveGrants, id);
    }
    return live.sort((a, b) => a.until - b.until || a.id.localeCompare(b.id));
  }

  async remove(grant: Grant): Promise<void> {
    await this.store.writeAll([
      { kind: 'delete', key: storeKeys.grant(grant.id) },
      { kind: 'removeFromSet', set: setOf(grant), member: grant.id },
      { kind: 'removeFromSet', set: storeKeys.liveGrants, member: grant.id },
    ]);
  }

  private async forget(grantId: string, set: string): Promise<void> {
    await this.store.writeAll([
      { kind: 'removeFromSet', set, member: grantId },
      { kind: 'removeFromSet', set: storeKeys.liveGrants, member: grantId },
    ]);
  }
}
