// Measures the runners one after the other, each built, warmed, measured and closed before the next.
// Not interleaved on purpose: the kernel's model client turns on AsyncLocalStorage, whose promise hooks then
// stay on for the whole process, so a bare loop measured after any kernel run would pay the kernel's cost.
import type { FakeModelProcess } from './fake-model.js';
import { type Measurement, measureSegment, warmUp } from './measure.js';
import { BrokenRunError, createRunner, type Runner, type RunnerName } from './runners.js';
import { TOOL_STEPS, TURNS_PER_RUN } from './scripted-run.js';

export interface ScheduleSettings {
  runs: number;
  concurrency: number;
  warmup: number;
}

export type Measurements = Partial<Record<RunnerName, Measurement>>;

/** Runs in the order given; put bare first, before anything in the process has turned on promise hooks. */
export async function measureRunners(
  names: RunnerName[],
  settings: ScheduleSettings,
  fake: FakeModelProcess,
  onMeasured: (name: RunnerName, measurement: Measurement) => void,
): Promise<Measurements> {
  const measured: Measurements = {};
  for (const name of names) {
    const runner = await createRunner(name, fake.baseURL);
    try {
      await warmUp(runner, settings);
      const measurement = await checkedSegment(runner, fake, settings.runs, settings.concurrency);
      measured[name] = measurement;
      onMeasured(name, measurement);
    } finally {
      await runner.close();
    }
  }
  return measured;
}

/** Measures the runs, then proves from the fake's side and the tool's side that every run did its four turns. */
async function checkedSegment(
  runner: Runner,
  fake: FakeModelProcess,
  runs: number,
  concurrency: number,
): Promise<Measurement> {
  const requestsBefore = await fake.requestCount();
  const toolsBefore = runner.tools.executions;
  const measurement = await measureSegment(runner, { runs, concurrency });
  const served = (await fake.requestCount()) - requestsBefore;
  const executed = runner.tools.executions - toolsBefore;
  const expectedTurns = runs * TURNS_PER_RUN;
  if (
    measurement.modelTurns !== expectedTurns ||
    served !== expectedTurns ||
    executed !== runs * TOOL_STEPS
  ) {
    throw new BrokenRunError(
      `${runner.name}: counted ${measurement.modelTurns} model turns, the fake model served ${served} requests (both should be ${expectedTurns}), and the tool ran ${executed} times (expected ${runs * TOOL_STEPS})`,
    );
  }
  return measurement;
}
