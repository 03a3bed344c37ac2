// Every process that steps runs takes them from one shared queue, whichever process took the request. So a run
// must only ever be queued where every stepping process can post its answer: a worker without a Slack token
// cannot answer a Slack thread, and no process but the one serving a playground can post to it. Such a mix is
// refused at start-up, naming both processes and the setting that fixes it, rather than losing answers.
import type { Platform } from '../../agent/principal.js';

/** What the check needs of a process's presence record (process-presence.ts). */
export interface PostingProfile {
  instanceId: string;
  role: 'all' | 'gateway' | 'worker';
  host: string;
  pid: number;
  /** The platforms whose requests it takes (a playground, Slack events, a Discord gateway). */
  takes?: readonly Platform[] | undefined;
  /** The platforms it can post to, when it steps runs; a playground is only ever its own. */
  posts?: readonly Platform[] | undefined;
}

const NAMES: Partial<Record<Platform, string>> = {
  playground: 'the playground',
  slack: 'Slack',
  discord: 'Discord',
};

/**
 * What would be lost between this process and the others: one sentence per pair of processes where one takes
 * requests the other would step and could not answer. Records without the fields (older versions) are skipped.
 */
export function postingConflicts(self: PostingProfile, others: readonly PostingProfile[]): string[] {
  const conflicts: string[] = [];
  for (const other of others) {
    if (other.instanceId === self.instanceId) continue;
    for (const platform of unanswerable(self, other))
      conflicts.push(conflictText(platform, { taker: self, stepper: other, self: 'taker' }));
    for (const platform of unanswerable(other, self))
      conflicts.push(conflictText(platform, { taker: other, stepper: self, self: 'stepper' }));
  }
  return conflicts;
}

/** The platforms `taker` takes requests from that `stepper` would step and could not post to. */
function unanswerable(taker: PostingProfile, stepper: PostingProfile): Platform[] {
  if (stepper.role === 'gateway' || taker.takes === undefined || stepper.posts === undefined) return [];
  const posts = stepper.posts;
  return taker.takes.filter((platform) => platform === 'playground' || !posts.includes(platform));
}

interface Pair {
  taker: PostingProfile;
  stepper: PostingProfile;
  /** Which of the two is this process. */
  self: 'taker' | 'stepper';
}

function conflictText(platform: Platform, { taker, stepper, self }: Pair): string {
  const name = NAMES[platform] ?? platform;
  const takerName = self === 'taker' ? 'this process' : describe(taker);
  const stepperName = self === 'stepper' ? `this ${roleName(stepper)}` : describe(stepper);
  return (
    `${takerName} takes requests from ${name}, and ${stepperName} steps runs from the same queue but cannot ` +
    `post to ${platform === 'playground' && stepper.posts?.includes('playground') ? 'that playground' : name}: ` +
    `those answers would be lost. ${remedy(platform, taker, stepper, self)}`
  );
}

function remedy(platform: Platform, taker: PostingProfile, stepper: PostingProfile, self: Pair['self']) {
  const where = (process: PostingProfile, own: boolean) => (own ? 'here' : `on ${describe(process)}`);
  if (platform === 'playground')
    return (
      `A playground lives in one process: set OPSBOT_PLAYGROUND=off ${where(taker, self === 'taker')}, or give it ` +
      'a store of its own (another OPSBOT_STORE_URL, or another Redis database such as redis://host:6379/1)'
    );
  const token =
    platform === 'slack' ? 'SLACK_BOT_TOKEN' : platform === 'discord' ? 'DISCORD_TOKEN' : undefined;
  return token
    ? `Set ${token} ${where(stepper, self === 'stepper')}, so that it can post there`
    : `Run ${platform} requests only where they can be answered`;
}

function describe(process: PostingProfile): string {
  return `the ${roleName(process)} ${process.host}:${process.pid}`;
}

function roleName(process: PostingProfile): string {
  return process.role === 'all' ? 'single process' : process.role;
}
