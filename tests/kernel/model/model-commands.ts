// The commands of the model test as data, with fast-check arbitraries and short names for failure messages.
import fc from 'fast-check';
import { PEOPLE, type Person, THREADS } from './model-world.js';
import { STEPS, type Step } from './scripted-model.js';

/** Which of the two processes takes the command. */
export type Side = 0 | 1;

export type Command =
  | { kind: 'start'; on: Side; who: Person; thread: number; steps: Step[] }
  | { kind: 'answer'; on: Side; who: Person; pick: number; text: 'api' | 'worker' | 'soon' }
  | { kind: 'decide'; on: Side; who: Person; pick: number; decision: 'approve' | 'deny'; stale: boolean }
  | { kind: 'cancel'; on: Side; who: Person; pick: number }
  /** Time passes, then the process's expiry sweep runs, or it expires one waiting run directly. */
  | { kind: 'expire'; on: Side; minutes: number; how: 'sweep' | 'direct'; pick: number }
  | { kind: 'recover'; on: Side }
  /** Time passes past the lease TTL: a dead process's leases lapse. */
  | { kind: 'lapse' }
  /**
   * The process dies: now (between commands), once it has made that many more store calls, or right after its
   * next write of one kind (between that write and the next one of a multi-write step). Or whichever
   * process runs the next write or danger action dies in it, before or after it took effect. A dead process is
   * started again.
   */
  | {
      kind: 'crash';
      on: Side;
      when: 'now' | 'action_before' | 'action_after' | number | { after: StoreWrite };
    }
  /** Two commands at once, on either process: two replicas handling two clicks. */
  | { kind: 'race'; first: Command; second: Command };

/** Kinds of store write a process can die right after. */
export const STORE_WRITES = [
  'run record',
  'run index',
  'thread lock',
  'thread line',
  'approval',
  'cancel request',
] as const;
export type StoreWrite = (typeof STORE_WRITES)[number];

const side = fc.constantFrom<Side>(0, 1);
const person = fc.constantFrom(...PEOPLE);
const pick = fc.nat(7);

const start = fc.record({
  kind: fc.constant('start' as const),
  on: side,
  who: fc.constantFrom<Person>('alice', 'alice', 'bob', 'carol'),
  thread: fc.nat(THREADS - 1),
  steps: fc.array(fc.constantFrom(...STEPS), { minLength: 1, maxLength: 3 }),
});
const answer = fc.record({
  kind: fc.constant('answer' as const),
  on: side,
  who: person,
  pick,
  text: fc.constantFrom('api' as const, 'worker' as const, 'soon' as const),
});
/** Mostly the approvers (Bob and Dave are admins), sometimes the requester or a viewer, who are refused. */
const clicker = fc.constantFrom<Person>('bob', 'dave', 'bob', 'dave', 'alice', 'carol');
const decide = fc.record({
  kind: fc.constant('decide' as const),
  on: side,
  who: clicker,
  pick,
  decision: fc.constantFrom('approve' as const, 'approve' as const, 'approve' as const, 'deny' as const),
  stale: fc.constantFrom(false, false, true),
});
const cancel = fc.record({ kind: fc.constant('cancel' as const), on: side, who: person, pick });
const expire = fc.record({
  kind: fc.constant('expire' as const),
  on: side,
  minutes: fc.constantFrom(1, 11, 16),
  how: fc.constantFrom('sweep' as const, 'direct' as const),
  pick,
});
const recover = fc.record({ kind: fc.constant('recover' as const), on: side });
const lapse = fc.constant({ kind: 'lapse' as const });
const crash = fc.record({
  kind: fc.constant('crash' as const),
  on: side,
  when: fc.oneof(
    fc.constantFrom('now' as const, 'action_before' as const, 'action_after' as const),
    fc.constantFrom('action_before' as const, 'action_after' as const),
    fc.integer({ min: 1, max: 40 }),
    fc.record({ after: fc.constantFrom(...STORE_WRITES) }),
  ),
});

/** What two replicas may do at the same moment: people's commands, a sweep, a recovery. */
const concurrent: fc.Arbitrary<Command> = fc.oneof(start, answer, decide, cancel, recover, expire);
const race = fc.record({ kind: fc.constant('race' as const), first: concurrent, second: concurrent });

const anyCommand: fc.Arbitrary<Command> = fc.oneof(
  { arbitrary: start, weight: 5 },
  { arbitrary: answer, weight: 3 },
  { arbitrary: decide, weight: 6 },
  { arbitrary: cancel, weight: 2 },
  { arbitrary: expire, weight: 2 },
  { arbitrary: recover, weight: 2 },
  { arbitrary: lapse, weight: 1 },
  { arbitrary: crash, weight: 2 },
  { arbitrary: race, weight: 3 },
);

/** One line per command, as the failure message lists the counterexample. */
export function describeCommand(command: Command): string {
  switch (command.kind) {
    case 'start':
      return `start(k${command.on}, ${command.who}, thread ${command.thread}, [${command.steps.join(', ')}])`;
    case 'answer':
      return `answer(k${command.on}, ${command.who}, #${command.pick}, "${command.text}")`;
    case 'decide':
      return `${command.decision}(k${command.on}, ${command.who}, #${command.pick}${command.stale ? ', any card' : ''})`;
    case 'cancel':
      return `cancel(k${command.on}, ${command.who}, #${command.pick})`;
    case 'expire':
      return `expire(k${command.on}, +${command.minutes} min, ${command.how}${command.how === 'direct' ? ` #${command.pick}` : ''})`;
    case 'recover':
      return `recover(k${command.on})`;
    case 'lapse':
      return 'lapse()';
    case 'crash':
      if (typeof command.when === 'number') return `crash(k${command.on}, after ${command.when} store calls)`;
      if (typeof command.when === 'object')
        return `crash(k${command.on}, after its next ${command.when.after} write)`;
      return command.when === 'now'
        ? `crash(k${command.on}, now)`
        : `crash(in the next action, ${command.when.slice(7)} it)`;
    case 'race':
      return `race(${describeCommand(command.first)} ‖ ${describeCommand(command.second)})`;
  }
}

/** A sequence opens with a task, so the commands after it have a run to act on. */
export function sequenceArbitrary(maxCommands: number): fc.Arbitrary<Command[]> {
  return fc
    .tuple(start, fc.array(anyCommand, { minLength: 4, maxLength: Math.max(4, maxCommands - 1) }))
    .map(([first, rest]) => [first, ...rest]);
}
