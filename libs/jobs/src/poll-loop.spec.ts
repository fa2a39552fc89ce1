import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PollLoop } from './poll-loop.js';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('PollLoop', () => {
  it('runs `count` steps at once, and stop() waits for every step in hand', async () => {
    let inFlight = 0;
    let most = 0;
    let finished = 0;
    const loop = new PollLoop(
      async () => {
        inFlight++;
        most = Math.max(most, inFlight);
        await tick(20);
        inFlight--;
        finished++;
        return true;
      },
      1_000,
      () => undefined,
      3,
    );
    loop.start();
    await tick(50);
    await loop.stop();
    assert.equal(most, 3, 'three steps ran at once');
    assert.equal(inFlight, 0, 'stop() resolved after the steps in hand');
    assert.ok(finished >= 3);
    assert.equal(loop.stopped, true);
  });

  it("wake() ends every idle loop's pause, and a failed step is reported and retried", async () => {
    const starts: number[] = [];
    const errors: string[] = [];
    let work = 0;
    const loop = new PollLoop(
      () => {
        starts.push(Date.now());
        if (starts.length === 1) return Promise.reject(new Error('database away'));
        if (work > 0) {
          work--;
          return Promise.resolve(true);
        }
        return Promise.resolve(false);
      },
      60_000,
      (error) => errors.push(error.message),
      2,
    );
    loop.start();
    await tick(30);
    assert.deepEqual(errors, ['database away']);
    const before = starts.length;
    assert.equal(before, 2, 'each loop stepped once, then paused');
    work = 2;
    loop.wake();
    await tick(30);
    // Both loops woke: the two units of work were taken and each loop stepped again until it found none.
    assert.equal(work, 0);
    assert.ok(starts.length >= before + 3, `steps after wake: ${starts.length - before}`);
    await loop.stop();
  });
});
