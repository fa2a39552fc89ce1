import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { inRequestScope, ServiceError, WorkBudget } from '@sextant/work';
import { LauncherSpawner } from './launcher.js';
import { runToCompletion } from './spawner.js';

describe('children under a caller deadline and a budget', () => {
  const spawner = new LauncherSpawner();
  after(() => spawner.close());

  it('kills a child once the caller of its request stops waiting', async () => {
    const started = performance.now();
    // A child that would run far longer than its caller waits, recognizable by its arguments.
    const marker = `30.${process.pid}`;
    const child = inRequestScope(300, () => runToCompletion(spawner, { command: 'sleep', args: [marker] }, { timeoutMs: 60_000 }));
    const alive = setTimeout(() => undefined, 10_000);
    await assert.rejects(child, (error: unknown) => error instanceof ServiceError && error.busError.code === 'timeout');
    clearTimeout(alive);
    assert.ok(performance.now() - started < 5_000, 'stopped at the deadline, not at its own time budget');
    const running = spawnSync('pgrep', ['-f', `sleep ${marker}`], { encoding: 'utf8' });
    assert.equal(running.stdout.trim(), '', 'the child is gone');
  });

  it('starts a child only when the budget has a slot, and a child outside any request is unaffected by deadlines', async () => {
    const budget = new WorkBudget('test-spawn', 1);
    const marks: string[] = [];
    const run = (name: string, seconds: number) =>
      runToCompletion(spawner, { command: 'sh', args: ['-c', `sleep ${seconds}; echo ${name}`] }, { timeoutMs: 10_000, budget }).then(
        (result) => marks.push(result.stdout.trim()),
      );
    const started = performance.now();
    await Promise.all([run('first', 0.4), run('second', 0.01)]);
    assert.deepEqual(marks, ['first', 'second'], 'the second waited for the first');
    assert.ok(performance.now() - started >= 400);
  });
});
