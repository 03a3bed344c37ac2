// Every key opsbot writes to the Store, in one place, so no two features can collide or drift apart.
import { type Conversation, conversationKey } from '../conversation.js';

export const storeKeys = {
  /** A run's record. */
  run: (runId: string) => `run:${runId}`,
  /** Set of runs that have not ended. */
  activeRuns: 'runs:active',
  /** Set of runs waiting for a person's answer or an approval. */
  waitingRuns: 'runs:waiting',
  /** Time index of waiting runs by when their question or approval expires, for the expiry sweep. */
  waitExpiry: 'runs:wait-expiry',
  /** Set once the runs that were waiting before the wait-expiry index existed have been put in it. */
  waitExpiryBackfilled: 'runs:wait-expiry:backfilled',
  /** Which process may change a run right now. */
  runLease: (runId: string) => `run-lease:${runId}`,
  /** A cancel asked for while a worker was stepping the run; the worker acts on it. */
  cancelRequest: (runId: string) => `cancel:${runId}`,
  /** A message a run posted, by the post's key, so a run stepped again after a crash does not post it twice. */
  runPost: (runId: string, key: string) => `post:${runId}:${key}`,
  /** Append-only log of the runs of one thread, for thread memory. */
  threadRuns: (conversation: Conversation) => `thread:${conversationKey(conversation)}`,
  /** Append-only log of one run's trace records, kept for `limits.trace_history` after the run ends. */
  runTrace: (runId: string) => `trace:${runId}`,
  /** Time index of runs' traces by when they are to be removed. */
  traceExpiry: 'traces:expiry',
  /** Held by the one run that is active in a thread. */
  threadLock: (conversation: Conversation) => `thread-lock:${conversationKey(conversation)}`,
  /** Run ids waiting for the thread, oldest first. */
  threadWaiting: (conversation: Conversation) => `thread-waiting:${conversationKey(conversation)}`,
  /** Serializes changes to the waiting list across replicas. */
  threadWaitingLock: (conversation: Conversation) => `thread-waiting-lock:${conversationKey(conversation)}`,
  /**
   * Written by the approval book of opsbot before run schema v4, read once at start to bring the runs that were
   * waiting then up to date (approval-fields-backfill.ts); nothing writes them any more.
   */
  legacyApproval: (approvalId: string) => `approval:${approvalId}`,
  legacyPendingApprovals: 'approvals:pending',
  /** Set once the runs waiting at the upgrade to v4 have been brought up to date, so no process does it again. */
  legacyApprovalsCopied: 'approvals:copied-into-runs',
  /** An approval grant (approval-grants.ts), kept until it ends: its TTL is the grant's life. */
  grant: (grantId: string) => `grant:${grantId}`,
  /** Set of the grants of one tool, for one requester, in one channel: a grant lookup reads it and its members. */
  grantsFor: (match: { tool: string; requester: string; platform: string; channelId: string }) =>
    `grants:${match.platform}:${match.channelId}:${match.requester}:${match.tool}`,
  /** Set of every grant not yet seen to have ended, for listing them. */
  liveGrants: 'grants:live',
  /** One delivery of a chat event, so platform retries are dropped. */
  chatEvent: (platform: string, eventId: string) => `event:${platform}:${eventId}`,
  /** One slot of a person's task rate. */
  rateSlot: (personKey: string, window: number, slot: number) => `rate:${personKey}:${window}:${slot}`,
  /** Held by the one gateway process that holds the Discord gateway session (Discord allows one per token). */
  discordSession: 'discord:session',
  /** A circuit breaker's state (`tool:<name>`, `model:…`), while it remembers failures; see circuit-breaker.ts. */
  breaker: (name: string) => `breaker:${name}`,
  /** Held by the one process sending a half-open breaker's trial call. */
  breakerTrial: (name: string) => `breaker-trial:${name}`,
  /** An Alertmanager group's state (bot/alerts/), by an opaque id derived from its `groupKey`. */
  alertGroup: (groupId: string) => `alert-group:${groupId}`,
  /** Held while one process handles a notification of the group, so two gateways make one root between them. */
  alertGroupLock: (groupId: string) => `alert-group-lock:${groupId}`,
  /** Held while one process posts what a group's thread does not show yet; changes to the group do not wait for it. */
  alertGroupDelivery: (groupId: string) => `alert-group-delivery:${groupId}`,
  /** Time index of the groups with posts still to make, by when the next try is due. */
  pendingAlertGroups: 'alert-groups:pending',
  /** Which alert group a Silence button's run silences, while the run may still end (alert-silence-links.ts). */
  alertSilenceRun: (runId: string) => `alert-silence-run:${runId}`,
  /** Set of the groups that fire now, for the groups-open gauge. */
  openAlertGroups: 'alert-groups:open',
  /** One automatic investigation of the hour's budget (`alerts.max_investigations_per_hour`). */
  alertInvestigationSlot: (hour: number, slot: number) => `alert-investigation:${hour}:${slot}`,
  /**
   * An MCP server's pinned tool definitions (tools/mcp/mcp-pin-repository.ts), by the server's name: kept for
   * good, as a pin lost would trust the server's tools afresh at its next sight.
   */
  mcpPins: (server: string) => `mcp-pins:${server}`,
  /** The append-only audit log. */
  auditLog: 'audit',
  /** A small value /readyz writes while writes fail, to learn when they work again (store-write-health.ts). */
  writeProbe: (instanceId: string) => `write-probe:${instanceId}`,
  /** The store's epoch: a random id written at first start; gone or changed means the store was reset. */
  storeEpoch: 'store:epoch',
  /** Said once in a thread after a reset to `epoch`, by whichever replica comes first. */
  storeResetNotice: (epoch: string, conversation: Conversation) =>
    `store-reset-notice:${epoch}:${conversationKey(conversation)}`,
  /** The local playground's channels and messages. */
  playgroundChannels: 'playground:channels',
  playgroundChannel: (channelId: string) => `playground:channel:${channelId}`,
  playgroundMessage: (messageId: string) => `playground:message:${messageId}`,
  playgroundChannelLog: (channelId: string) => `playground:channel-messages:${channelId}`,
} as const;
