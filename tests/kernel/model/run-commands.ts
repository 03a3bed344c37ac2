// Carries out model-test commands against the world's two processes, and tells the story of what each did.
import { OpsbotError } from '../../../agent/errors.js';
import type { Run } from '../../../agent/run.js';
import { loadRunRecord } from '../../../agent/run-migrations.js';
import { storeKeys } from '../../../agent/store/store-keys.js';
import { type Command, describeCommand, type StoreWrite } from './model-commands.js';
import { LEASE_MS, type ModelWorld } from './model-world.js';
import type { StoreCallMatch } from './process-life.js';
import { taskText } from './scripted-model.js';

/** Every stored run the world knows of, in the order they were made; one that cannot load is a problem. */
export async function storedRuns(world: ModelWorld): Promise<Run[]> {
  const runs: Run[] = [];
  for (const runId of world.runIds) {
    const raw = await world.observer.get<unknown>(storeKeys.run(runId));
    if (raw === undefined) continue;
    try {
      runs.push(loadRunRecord(raw, `stored run ${runId}`));
    } catch (error) {
      world.problems.push(`run ${runId} does not load: ${String(error)}`);
    }
  }
  return runs;
}

export async function runCommand(world: ModelWorld, command: Command, index: number): Promise<void> {
  world.story.push(`#${index} ${describeCommand(command)}`);
  if (command.kind === 'race') {
    // Nobody dies during a race: a person's click waits for a lease by the injected clock, which stands still,
    // so a lease left by a process dying mid-race would keep the other click waiting for ever.
    const armed = world.replicas.map((replica) => replica.life.pause());
    const trap = world.executions.actionTrap;
    world.executions.actionTrap = undefined;
    // Time passes first, then both act at the same moment: a clock jump under a command that holds a lease
    // would be a process paused for minutes, which this model does not play.
    for (const part of [command.first, command.second])
      if (part.kind === 'expire') await world.advance(part.minutes * 60_000);
    const dead = await deadLeases(world);
    await Promise.all([
      perform(world, command.first, 'a', dead, { timePassed: true }),
      perform(world, command.second, 'b', dead, { timePassed: true }),
    ]);
    for (const [slot, replica] of world.replicas.entries()) replica.life.resume(armed[slot]!);
    world.executions.actionTrap = trap;
  } else {
    await perform(world, command, '', await deadLeases(world));
  }
  await world.quiesce();
}

async function perform(
  world: ModelWorld,
  command: Command,
  label: string,
  deadLeases: ReadonlySet<string>,
  options: { timePassed?: boolean } = {},
): Promise<void> {
  const tell = (text: string) => world.story.push(`  ${label ? `${label}: ` : ''}${text}`);
  if (command.kind === 'race') return;
  if (command.kind === 'lapse') return world.advance(LEASE_MS + 1);
  const replica = world.replicas[command.on]!;
  const work = async (): Promise<string> => {
    const { kernel } = replica;
    switch (command.kind) {
      case 'start': {
        const text = taskText(world.nextTask(), command.steps);
        const runId = await kernel.start({
          text,
          principal: world.person(command.who),
          conversation: world.conversation(command.thread),
        });
        return `started ${runId}: "${text}"`;
      }
      case 'answer': {
        const runs = await storedRuns(world);
        const waiting = runs.filter((run) => run.status === 'waiting_for_user');
        const target = choose(waiting.length > 0 ? waiting : runs, command.pick);
        if (!target) return 'no run to answer';
        if (deadLeases.has(target.id)) return `${target.id} is held by a dead process: skipped`;
        const run = await kernel.answer(target.id, command.text, world.person(command.who));
        return `answered ${target.id}: now ${run.status}`;
      }
      case 'decide': {
        const runs = await storedRuns(world);
        const waiting = runs.flatMap((run) =>
          run.status === 'waiting_for_approval' ? [run.approval.approvalId] : [],
        );
        const cards = world.chat.ofKind('approval').map((card) => card.approvalId);
        const approvalId = choose(command.stale || waiting.length === 0 ? cards : waiting, command.pick);
        if (!approvalId) return 'no approval to decide';
        const card = world.chat.ofKind('approval').find((entry) => entry.approvalId === approvalId)!;
        if (deadLeases.has(card.runId)) return `${card.runId} is held by a dead process: skipped`;
        const click = await kernel.decideApproval(approvalId, world.person(command.who), command.decision);
        return `${command.decision} ${approvalId.slice(0, 10)}… of ${card.runId}: ${click.message}`;
      }
      case 'cancel': {
        const target = choose(await storedRuns(world), command.pick);
        if (!target) return 'no run to cancel';
        return (await kernel.cancel(target.id, world.person(command.who))).message;
      }
      case 'expire': {
        if (!options.timePassed) await world.advance(command.minutes * 60_000);
        if (command.how === 'sweep') return `the sweep expired ${await replica.sweep.sweep()}`;
        const runs = await storedRuns(world);
        const waiting = runs.filter(
          (run) => run.status === 'waiting_for_user' || run.status === 'waiting_for_approval',
        );
        const target = choose(waiting.length > 0 ? waiting : runs, command.pick);
        if (!target) return 'no run to expire';
        return `expire ${target.id}: ${await kernel.expire(target.id)}`;
      }
      case 'recover': {
        const counts = await kernel.recover();
        // In a race, the other command may hold a run recovery would cancel: it is carried out next time.
        if (!label) await checkCancelsCarriedOut(world);
        return `recovered ${JSON.stringify(counts)}`;
      }
      case 'crash': {
        const { when } = command;
        if (when === 'action_before' || when === 'action_after') {
          world.executions.actionTrap = when === 'action_before' ? 'before' : 'after';
          return 'armed: whichever process runs the next action';
        }
        if (when === 'now') replica.life.kill();
        else if (typeof when === 'number') replica.life.dieAfterStoreCalls(when);
        else replica.life.dieAfter(writeOf(when.after));
        return `${replica.life.name} armed`;
      }
    }
  };
  const runsBefore = world.runIds.length;
  const outcome = await Promise.race([
    work().then(
      (text) => text,
      (error: unknown) => {
        if (error instanceof OpsbotError)
          return `${error.fault === 'caller' ? 'refused' : 'failed'}: ${error.message}`;
        world.problems.push(`${describeCommand(command)} threw ${String(error)}`);
        return `threw ${String(error)}`;
      },
    ),
    replica.life.died.then(() => `${replica.life.name} died during the command`),
  ]);
  // A process that died while starting a run was in the middle of it, holding no lease.
  if (command.kind === 'start' && replica.life.dead) {
    for (const runId of world.runIds.slice(runsBefore)) world.caughtByCrash.add(runId);
  }
  tell(outcome);
}

/**
 * Cancel is final: once a recovery pass has run, no run that nobody holds still waits for a person with a cancel
 * request stored for it. Nobody steps a waiting run, so "at its next step" must not mean "when it expires".
 */
export async function checkCancelsCarriedOut(world: ModelWorld): Promise<void> {
  for (const run of await storedRuns(world)) {
    if (run.status !== 'waiting_for_user' && run.status !== 'waiting_for_approval') continue;
    if ((await world.observer.get(storeKeys.cancelRequest(run.id))) === undefined) continue;
    if ((await world.observer.holder(storeKeys.runLease(run.id))) !== undefined) continue;
    world.problems.push(`${run.id} is still ${run.status} after recovery, with a cancel request stored`);
  }
}

/** Which store calls are a write of that kind. */
function writeOf(kind: StoreWrite): StoreCallMatch {
  const key = (args: unknown[]) => String(args[0]);
  switch (kind) {
    case 'run record':
      return (method, args) => method === 'set' && key(args).startsWith('run:');
    case 'run index':
      return (method, args) =>
        (method === 'addToSet' || method === 'removeFromSet') && key(args).startsWith('runs:');
    case 'thread lock':
      return (method, args) =>
        (method === 'claim' || method === 'release') && key(args).startsWith('thread-lock:');
    case 'thread line':
      return (method, args) =>
        (method === 'set' || method === 'delete') && key(args).startsWith('thread-waiting:');
    case 'approval':
      return (method, args) =>
        (method === 'set' || method === 'claim') && /^approval(-decision)?:/.test(key(args));
    case 'cancel request':
      return (method, args) => (method === 'set' || method === 'delete') && key(args).startsWith('cancel:');
  }
}

function choose<T>(items: readonly T[], pick: number): T | undefined {
  return items.length === 0 ? undefined : items[pick % items.length];
}

/**
 * The runs whose lease a dead process still holds: between commands, the live ones hold none. A person's answer
 * or click on such a run is skipped, for the same reason as in a race: it would wait for ever by a clock that
 * stands still (in production it is told "busy" after 5 s).
 */
async function deadLeases(world: ModelWorld): Promise<Set<string>> {
  const held = new Set<string>();
  for (const runId of world.runIds) {
    if ((await world.observer.holder(storeKeys.runLease(runId))) !== undefined) held.add(runId);
  }
  return held;
}
