import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LOCAL_PRINCIPAL, type Principal } from '@sextant/contracts';
import { CallLimits } from './call-limits.js';

const key = (id: string): Principal => ({ kind: 'key', id, name: id, admin: false, projects: {}, groups: [] });

function limits(now: { t: number }) {
  return new CallLimits(
    {
      perCaller: { perMinute: 60, burst: 3 },
      perTool: { ask_code: { perMinute: 6, burst: 1 } },
      inFlightPerCaller: 2,
      inFlight: 3,
    },
    () => now.t,
  );
}

const admitted = (a: ReturnType<CallLimits['admit']>) => 'release' in a;

describe('CallLimits', () => {
  it('lets a burst through, then one call per refill interval; other callers keep their own buckets', () => {
    const now = { t: 0 };
    const l = limits(now);
    for (let i = 0; i < 3; i++) {
      const a = l.admit(key('a'), 'search_code');
      assert.ok(admitted(a));
      if ('release' in a) a.release();
    }
    const refused = l.admit(key('a'), 'search_code');
    assert.deepEqual(refused, { retryAfterMs: 1_000, reason: 'more than 60 calls a minute' });
    assert.ok(admitted(l.admit(key('b'), 'search_code')), 'b is not limited by a');
    now.t += 1_000;
    assert.ok(admitted(l.admit(key('a'), 'search_code')), 'a token a second');
  });

  it("limits one tool on its own rate without spending the caller's other tokens", () => {
    const now = { t: 0 };
    const l = limits(now);
    const first = l.admit(key('a'), 'ask_code');
    assert.ok(admitted(first));
    if ('release' in first) first.release();
    const second = l.admit(key('a'), 'ask_code');
    assert.deepEqual(second, { retryAfterMs: 10_000, reason: 'more than 6 ask_code calls a minute' });
    // The refused ask_code gave its caller-wide token back: two more calls of other tools go through.
    for (let i = 0; i < 2; i++) assert.ok(admitted(l.admit(key('a'), 'locate_symbol')));
  });

  it('caps calls in flight per caller and for the gateway, and frees a slot once per release', () => {
    const now = { t: 0 };
    const l = limits(now);
    const a1 = l.admit(key('a'), 't');
    const a2 = l.admit(key('a'), 't');
    assert.match((l.admit(key('a'), 't') as { reason: string }).reason, /2 calls of this caller in flight/);
    const b1 = l.admit(key('b'), 't');
    assert.match((l.admit(key('c'), 't') as { reason: string }).reason, /the gateway has 3 calls in flight/);
    if ('release' in a1) {
      a1.release();
      a1.release();
    }
    assert.ok(admitted(l.admit(key('c'), 't')));
    assert.ok(admitted(a2) && admitted(b1));
  });

  it('does not limit the local user', () => {
    const l = limits({ t: 0 });
    for (let i = 0; i < 100; i++) assert.ok(admitted(l.admit(LOCAL_PRINCIPAL, 'ask_code')));
  });
});
