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
  it("sends a turn's first publish at once and the rest of the turn's in one write, in order, at its end", async () => {
    const log: string[] = [];
    const publish = fakeConnection(log);
    const batch = new PublishBatch();
    // Three timers of one turn: each callback is followed by its microtasks, as socket reads are.
    await new Promise<void>((resolve) => {
      setTimeout(() => {
        batch.add(() => publish('a'));
        assert.deepEqual(log, ['a'], "the turn's first is published at once");
      }, 0);
      setTimeout(() => batch.add(() => publish('b')), 0);
      setTimeout(() => {
        batch.add(() => publish('c'));
        assert.deepEqual(log, ['a', 'write'], 'the others wait for the end of the turn');
        resolve();
      }, 0);
    });
    await turnsEnd();
    assert.deepEqual(log, ['a', 'write', 'b', 'c', 'write']);
    // A later turn's first goes at once again.
    log.length = 0;
    await new Promise<void>((resolve) =>
      setTimeout(() => {
        batch.add(() => publish('d'));
        assert.deepEqual(log, ['d']);
        resolve();
      }, 0),
    );
    // Unbatched, each callback's publish is written on its own.
    await turnsEnd();
    log.length = 0;
    await new Promise<void>((resolve) => {
      setTimeout(() => publish('e'), 0);
      setTimeout(() => publish('f'), 0);
      setTimeout(() => (publish('g'), resolve()), 0);
    });
    await turnsEnd();
    assert.deepEqual(log, ['e', 'write', 'f', 'write', 'g', 'write']);
  });

  it('publishes the rest when one throws, and flush() sends at once', async () => {
    const sent: string[] = [];
    const batch = new PublishBatch();
    batch.add(() => sent.push('first'));
    batch.add(() => {
      throw new Error('connection closed');
    });
    batch.add(() => sent.push('third'));
    batch.add(() => sent.push('fourth'));
    assert.deepEqual(sent, ['first'], 'the rest of the turn waits');
    batch.flush();
    assert.deepEqual(sent, ['first', 'third', 'fourth']);
    await turnsEnd();
    assert.deepEqual(sent, ['first', 'third', 'fourth'], 'nothing is sent twice');
  });

  it('keeps the turn open when its first publish throws, and sends a publish made while flushing after the rest', async () => {
    const sent: string[] = [];
    const batch = new PublishBatch();
    batch.add(() => {
      throw new Error('connection closed');
    });
    batch.add(() => {
      sent.push('second');
      // A publish made by a queued one (none does today) waits behind the rest of the batch.
      batch.add(() => sent.push('made while flushing'));
    });
    batch.add(() => sent.push('third'));
    assert.deepEqual(sent, [], 'after a first that threw, the rest of the turn still waits');
    await turnsEnd();
    assert.deepEqual(sent, ['second', 'third', 'made while flushing']);
  });
});
