import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { LauncherSpawner } from './launcher.js';
import { runToCompletion } from './spawner.js';

describe('launcher spawner', () => {
  const spawner = new LauncherSpawner();
  after(() => spawner.close());

  it('delivers all of stdout and stderr, in order, before the exit status', async () => {
    const script = 'for i in $(seq 1 20000); do echo "line $i"; done; echo oops >&2; exit 3';
    const result = await runToCompletion(spawner, { command: 'sh', args: ['-c', script] }, { timeoutMs: 10_000 });
    const lines = result.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 20_000);
    assert.equal(lines[0], 'line 1');
    assert.equal(lines[19_999], 'line 20000');
    assert.equal(result.stderr, 'oops\n');
    assert.deepEqual([result.code, result.signal, result.timedOut], [3, null, false]);
  });

  it('passes arguments verbatim (no shell), the working directory and exactly the given environment', async () => {
    const result = await runToCompletion(
      spawner,
      {
        command: 'sh',
        args: ['-c', 'printf "%s|%s|%s" "$1" "$(pwd)" "$ONLY"', 'sh', '$(echo hi); `x`'],
        cwd: '/tmp',
        env: { ONLY: 'yes' },
      },
      { timeoutMs: 10_000 },
    );
    assert.equal(result.stdout, '$(echo hi); `x`|/tmp|yes');
  });

  it('kills a child past its time budget', async () => {
    const started = performance.now();
    const result = await runToCompletion(spawner, { command: 'sleep', args: ['30'] }, { timeoutMs: 200 });
    assert.equal(result.timedOut, true);
    assert.equal(result.signal, 'SIGKILL');
    assert.ok(performance.now() - started < 10_000);
  });

  it('rejects when the program does not exist', async () => {
    await assert.rejects(runToCompletion(spawner, { command: '/nonexistent/program', args: [] }, { timeoutMs: 5_000 }), /ENOENT/);
  });

  it('runs many children at once without mixing their output', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        runToCompletion(spawner, { command: 'sh', args: ['-c', `seq ${i} 1000 | tail -n 1; echo ${i}`] }, { timeoutMs: 10_000 }),
      ),
    );
    results.forEach((r, i) => assert.equal(r.stdout, `1000\n${i}\n`));
  });
});

describe('launcher process', () => {
  it('reports the children of a launcher that died as failed, and starts a new launcher for the next one', async () => {
    const spawner = new LauncherSpawner();
    try {
      const running = runToCompletion(spawner, { command: 'sleep', args: ['30'] }, { timeoutMs: 20_000 });
      await new Promise((r) => setTimeout(r, 300));
      const launcher = (spawner as unknown as { child: { pid: number } }).child;
      process.kill(launcher.pid, 'SIGKILL');
      await assert.rejects(running, /launcher process exited/);
      const again = await runToCompletion(spawner, { command: 'echo', args: ['back'] }, { timeoutMs: 10_000 });
      assert.equal(again.stdout, 'back\n');
    } finally {
      await spawner.close();
    }
  });

  it('outlives a Ctrl-C (SIGINT to the process group): its parent ends it, by close()', async () => {
    const spawner = new LauncherSpawner();
    const running = runToCompletion(spawner, { command: 'sleep', args: ['30'] }, { timeoutMs: 20_000 }).catch((e: Error) => e);
    await new Promise((r) => setTimeout(r, 300));
    const launcher = (spawner as unknown as { child: { pid: number } }).child;
    process.kill(launcher.pid, 'SIGINT');
    await new Promise((r) => setTimeout(r, 300));
    assert.doesNotThrow(() => process.kill(launcher.pid, 0), 'the launcher still runs');
    await spawner.close();
    assert.throws(() => process.kill(launcher.pid, 0), /ESRCH/);
    assert.match(String(await running), /launcher process exited/);
  });

  it('stops with close(), killing what it still runs', async () => {
    const spawner = new LauncherSpawner();
    const running = runToCompletion(spawner, { command: 'sleep', args: ['30'] }, { timeoutMs: 20_000 }).catch((e: Error) => e);
    await new Promise((r) => setTimeout(r, 300));
    const launcher = (spawner as unknown as { child: { pid: number } }).child;
    await spawner.close();
    assert.throws(() => process.kill(launcher.pid, 0), /ESRCH/);
    assert.match(String(await running), /launcher process exited/);
    await assert.rejects(runToCompletion(spawner, { command: 'echo', args: ['late'] }, { timeoutMs: 1_000 }), /launcher is closed/);
  });
});
