import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AutoSync, type SyncOutcome } from './auto-sync.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('AutoSync', () => {
  it('makes one sync of a burst of changes, after the last one', async () => {
    const synced: string[] = [];
    const auto = new AutoSync(60);
    auto.start(async (id) => (synced.push(id), 'started'));
    for (let i = 0; i < 5; i++) {
      auto.changed('r1');
      await sleep(20);
    }
    auto.changed('r2');
    assert.deepEqual(synced, [], 'nothing while edits keep coming');
    await sleep(150);
    assert.deepEqual(synced.sort(), ['r1', 'r2']);
    auto.stop();
  });

  it('asks again while a job is running, until one can start', async () => {
    const outcomes: SyncOutcome[] = ['busy', 'busy', 'started'];
    let calls = 0;
    const auto = new AutoSync(20);
    auto.start(async () => outcomes[calls++]);
    auto.changed('r1');
    await sleep(200);
    assert.equal(calls, 3);
    auto.stop();
  });

  it('does nothing when off (0) or stopped, and survives a failing sync', async () => {
    let calls = 0;
    const off = new AutoSync(0);
    off.start(async () => (calls++, 'started'));
    off.changed('r1');
    const stopped = new AutoSync(10);
    stopped.start(async () => (calls++, 'started'));
    stopped.changed('r1');
    stopped.stop();
    await sleep(50);
    assert.equal(calls, 0);
    const failing = new AutoSync(10);
    failing.start(async () => {
      calls++;
      throw new Error('registry down');
    });
    failing.changed('r1');
    await sleep(50);
    failing.changed('r1');
    await sleep(50);
    assert.equal(calls, 2, 'each later change tries again');
    failing.stop();
  });
});
