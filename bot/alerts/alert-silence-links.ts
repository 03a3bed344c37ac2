// Which alert group a Silence button's run silences, kept in the Store from the click until the run ends: the run
// may end in another process (a worker on Redis) than the gateway that started it, and that process edits the root.
import { z } from 'zod';
import type { Store } from '../../agent/store/store.js';
import { storeKeys } from '../../agent/store/store-keys.js';

/** Longer than a run waits for its approval and makes its one call; a link whose run never ended lapses after it. */
const LINK_TTL_MS = 2 * 86_400_000;

const SilenceLinkSchema = z.object({ groupId: z.string(), duration: z.string() });
export type SilenceLink = z.infer<typeof SilenceLinkSchema>;

export class SilenceRunLinks {
  constructor(private readonly store: Pick<Store, 'get' | 'set' | 'delete'>) {}

  /** Written before the run starts, so even a run that ends at once finds its group. */
  link(runId: string, link: SilenceLink): Promise<void> {
    return this.store.set(storeKeys.alertSilenceRun(runId), link, LINK_TTL_MS);
  }

  async find(runId: string): Promise<SilenceLink | undefined> {
    const parsed = SilenceLinkSchema.safeParse(await this.store.get(storeKeys.alertSilenceRun(runId)));
    return parsed.success ? parsed.data : undefined;
  }

  async forget(runId: string): Promise<void> {
    await this.store.delete(storeKeys.alertSilenceRun(runId));
  }
}
