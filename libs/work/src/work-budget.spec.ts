import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { metricsRegistry } from '@sextant/telemetry';
import { ServiceError } from './errors.js';
import { callerSignal, currentLane, inRequestScope } from './request-scope.js';
import { WorkBudget } from './work-budget.js';

/** A piece of work that runs until `finish()`. */
function held(): { work: () => Promise<void>; finish(): void; started: Promise<void> } {
  let finish!: () => void;
  let started!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const began = new Promise<void>((resolve) => (started = resolve));
  return {
    work: async () => {
      started();
      await done;
    },
    finish,
    started: began,
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

async function gauge(name: string, labels: Record<string, string>): Promise<number | undefined> {
  const metric = (await metricsRegistry.getMetricsAsJSON()).find((m) => m.name === name);
  return (metric?.values as Array<{ labels: Record<string, string>; value: number }> | undefined)?.find((v) =>
    Object.entries(labels).every(([k, l]) => v.labels[k] === l),
  )?.value;
}

describe('request scope', () => {
  it('marks the work of a request interactive, aborts its signal at the deadline, and nothing outside it', async () => {
    assert.equal(currentLane(), 'background');
    assert.equal(callerSignal(), undefined);
    const signal = await inRequestScope(30, async () => {
      await tick();
      assert.equal(currentLane(), 'interactive');
      return callerSignal()!;
    });
    assert.equal(signal.aborted, false);
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.equal(signal.aborted, true);
    assert.equal(
      inRequestScope(undefined, () => callerSignal()),
      undefined,
      'no deadline, no signal',
    );
  });
});

describe('WorkBudget', () => {
  it('runs at most its slots at once and serves the interactive lane before the background one', async () => {
    const budget = new WorkBudget('test-lanes', 1);
    const first = held();
    const order: string[] = [];
    const running = budget.run(first.work, undefined, 'background');
    await first.started;
    const queued = [
      budget.run(async () => void order.push('background 1'), undefined, 'background'),
      budget.run(async () => void order.push('background 2'), undefined, 'background'),
      budget.run(async () => void order.push('interactive 1'), undefined, 'interactive'),
      inRequestScope(10_000, () => budget.run(async () => void order.push('interactive 2'))),
    ];
    await tick();
    assert.deepEqual(order, [], 'one slot, held');
    assert.equal(await gauge('sextant_work_waiting', { budget: 'test-lanes', lane: 'background' }), 2);
    assert.equal(await gauge('sextant_work_waiting', { budget: 'test-lanes', lane: 'interactive' }), 2);
    assert.equal(await gauge('sextant_work_running', { budget: 'test-lanes' }), 1);
    first.finish();
    await Promise.all([running, ...queued]);
    assert.deepEqual(order, ['interactive 1', 'interactive 2', 'background 1', 'background 2']);
    assert.equal(await gauge('sextant_work_running', { budget: 'test-lanes' }), 0);
  });

  it('lets a waiter whose caller stopped waiting leave the queue with a timeout error, and keeps the others', async () => {
    const budget = new WorkBudget('test-leave', 1);
    const first = held();
    const running = budget.run(first.work);
    await first.started;
    const late = inRequestScope(20, () => budget.run(async () => 'never'));
    const patient = budget.run(async () => 'ran');
    // The deadline's timer does not keep a process alive (a server has its sockets for that); this test has nothing else.
    const alive = setTimeout(() => undefined, 5_000);
    await assert.rejects(late, (error: unknown) => error instanceof ServiceError && error.busError.code === 'timeout');
    clearTimeout(alive);
    assert.equal(await gauge('sextant_work_waiting', { budget: 'test-leave', lane: 'interactive' }), 0);
    first.finish();
    assert.equal(await patient, 'ran');
    await running;
    assert.equal(await gauge('sextant_work_running', { budget: 'test-leave' }), 0);
  });

  it('gives the slots a resize adds to waiters at once, and frees a slot once when released twice', async () => {
    const budget = new WorkBudget('test-resize', 1);
    const works = [held(), held(), held()];
    const runs = works.map((w) => budget.run(w.work, undefined, 'background'));
    await works[0].started;
    budget.resize(3);
    await Promise.all(works.map((w) => w.started));
    for (const w of works) w.finish();
    await Promise.all(runs);
    const release = await budget.acquire(undefined, 'background');
    release();
    release();
    assert.equal(await gauge('sextant_work_running', { budget: 'test-resize' }), 0);
    assert.throws(() => budget.resize(0), RangeError);
  });
});
