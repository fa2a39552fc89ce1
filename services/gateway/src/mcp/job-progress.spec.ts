import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, it } from 'node:test';
import type { BusClient } from '@sextant/messaging';
import { JobFollower, type ProgressParams } from './job-progress.js';

/** A bus whose job-status answers are `statuses`, one a poll (the last one repeated). */
function busAnswering(statuses: Array<{ status: string; percentage: number; message: string }>): BusClient {
  let poll = 0;
  return {
    request: async <T>() => {
      const s = statuses[Math.min(poll++, statuses.length - 1)];
      const body = {
        status: s.status,
        error_message: null,
        progress: { stage: 'x', percentage: s.percentage, message: s.message, title: 'T' },
      };
      return body as T;
    },
    isConnected: () => true,
    close: async () => undefined,
  };
}

describe('JobFollower', () => {
  it("leaves no abort listener on the call's signal per poll (20 polls: no MaxListenersExceededWarning)", async () => {
    const statuses = Array.from({ length: 20 }, (_, i) => ({ status: 'running', percentage: i, message: `symbols: ${i}/20 files` }));
    statuses.push({ status: 'completed', percentage: 100, message: 'Indexed 20 files, 20 symbols in 0.1s' });
    const controller = new AbortController();
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => void warnings.push(warning);
    process.on('warning', onWarning);
    const most: number[] = [];
    const sent: ProgressParams[] = [];
    try {
      const follower = new JobFollower(busAnswering(statuses), { pollMs: 1, waitMs: 10_000 });
      const final = await follower.follow('job', 'tok', {
        token: 'tok',
        background: false,
        signal: controller.signal,
        send: async (params) => {
          sent.push(params);
          most.push(getEventListeners(controller.signal, 'abort').length);
        },
      });
      assert.equal(final?.status, 'completed');
      // Warnings are emitted on the next tick.
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    assert.equal(sent.length, 21);
    assert.deepEqual(
      warnings.filter((w) => w.name === 'MaxListenersExceededWarning'),
      [],
    );
    assert.ok(Math.max(...most) <= 1, `abort listeners while following: ${most.join(', ')}`);
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0, 'none left once the job ended');
  });

  it('stops at once when the client goes away mid-poll', async () => {
    const controller = new AbortController();
    const follower = new JobFollower(busAnswering([{ status: 'running', percentage: 5, message: 'symbols: 1/20 files' }]), {
      pollMs: 60_000,
      waitMs: 120_000,
    });
    const following = follower.follow('job', 'tok', {
      token: 'tok',
      background: false,
      signal: controller.signal,
      send: async () => undefined,
    });
    setTimeout(() => controller.abort(), 20);
    const started = Date.now();
    assert.equal((await following)?.status, 'running');
    assert.ok(Date.now() - started < 5_000);
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
  });
});
