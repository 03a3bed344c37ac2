// The Store keys of the patrol clock, in the style of agent/store/store-keys.ts.

export const patrolKeys = {
  /**
   * One scheduled slot of a patrol, claimed by the one replica that runs it. `slotMs` is the scheduled instant in
   * epoch ms (whole seconds), the same on every replica. The claim is never released early.
   */
  slot: (name: string, slotMs: number) => `patrol:${name}:${slotMs}`,
  /** The latest slot of a patrol that some replica claimed, for the catch-up after downtime. */
  lastSlot: (name: string) => `patrol:${name}:last_slot`,
  /** Held by the replica running the patrol now, renewed while it runs and released when it ends. */
  running: (name: string) => `patrol:${name}:running`,
} as const;

/** Shorthand for the slot key, the one other modules and tests need most. */
export const patrolSlotKey = patrolKeys.slot;
