import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PublishBatch } from './publish-batch.js';

/** A publish as nats.js makes one: queued, and written in a microtask unless a write is already scheduled. */
function fakeConnection(log: string[]) {
  let scheduled = false;
  return (name: string) => {
    log.push(name);
    if (scheduled) return;
    scheduled = true;
    queueMicrotask(() => {
      scheduled = false;
      log.push('write');
    });
  };
}

const turnsEnd = () => new Promise((resolve) => setImmediate(resolve));

describe('PublishBatch', () => {
  it('sends the publishes of separate callbacks of one turn in one write, in order, at the end of the turn', async () => {
    const log: string[] = [];
    const publish = fakeConnection(log);
    const batch = new PublishBatch();
    // Two timers of one turn: each callback is followed by its microtasks, as two socket reads are.
    await new Promise<void>((resolve) => {
      setTimeout(() => batch.add(() => publish('a')), 0);
      setTimeout(() => {
        batch.add(() => publish('b'));
        assert.deepEqual(log, [], 'nothing is published before the end of the turn');
        resolve();
      }, 0);
    });
    await turnsEnd();
    assert.deepEqual(log, ['a', 'b', 'write']);
    // Unbatched, each callback's publish is written on its own.
    log.length = 0;
    await new Promise<void>((resolve) => {
      setTimeout(() => publish('c'), 0);
      setTimeout(() => (publish('d'), resolve()), 0);
    });
    await turnsEnd();
    assert.deepEqual(log, ['c', 'write', 'd', 'write']);
  });

  it('publishes the rest when one throws, and flush() sends at once', async () => {
    const sent: string[] = [];
    const batch = new PublishBatch();
    batch.add(() => sent.push('first'));
    batch.add(() => {
      throw new Error('connection closed');
    });
    batch.add(() => sent.push('third'));
    batch.flush();
    assert.deepEqual(sent, ['first', 'third']);
    await turnsEnd();
    assert.deepEqual(sent, ['first', 'third'], 'nothing is sent twice');
  });
});
