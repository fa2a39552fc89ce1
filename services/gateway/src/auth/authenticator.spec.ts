import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { VerifyApiKey } from '@sextant/contracts';
import type { BusClient } from '@sextant/messaging';
import { loadConfig } from '../config.js';
import { Authenticator } from './authenticator.js';

const GOOD = 'sxt_good-key-0123456789';
const LATE = 'sxt_late-key-0123456789';

/** API keys only, a bus that knows GOOD and LATE and counts the lookups. */
function authenticator(failuresPerMinute: number) {
  const known = new Set([GOOD, LATE].map((k) => createHash('sha256').update(k).digest('hex')));
  const lookups = { count: 0 };
  const bus = {
    request: async (subject: string, body: { sha256: string }) => {
      assert.equal(subject, VerifyApiKey.SUBJECT);
      lookups.count++;
      return { key: known.has(body.sha256) ? { id: body.sha256, name: 'k', admin: true, projects: {} } : null };
    },
  } as unknown as BusClient;
  const config = loadConfig({ NATS_URL: 'nats://127.0.0.1:4222', SEXTANT_AUTH_FAILURES_PER_MINUTE: String(failuresPerMinute) });
  return { auth: new Authenticator(config, bus), lookups };
}

const status = (outcome: Awaited<ReturnType<Authenticator['authenticate']>>) =>
  'principal' in outcome ? 'in' : `${outcome.failure.status}${outcome.failure.retryAfter ? ` retry ${outcome.failure.retryAfter}` : ''}`;

describe('Authenticator: refused credentials per client address (SEXTANT_AUTH_FAILURES_PER_MINUTE)', () => {
  it('past the budget, refuses an address with 429 without looking its keys up; remembered keys and other addresses still get in', async () => {
    const { auth, lookups } = authenticator(3);
    assert.equal(status(await auth.authenticate(`Bearer ${GOOD}`, '10.0.0.1')), 'in');
    const unknown = (i: number) => `Bearer sxt_unknown-${i}-0123456789`;
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(status(await auth.authenticate(unknown(i), '10.0.0.1')));
    answers.push(status(await auth.authenticate(undefined, '10.0.0.1')));
    assert.deepEqual(answers, ['401', '401', '401', '429 retry 20']);
    const before = lookups.count;
    assert.equal(status(await auth.authenticate(unknown(9), '10.0.0.1')), '429 retry 20');
    assert.equal(status(await auth.authenticate(`Bearer ${LATE}`, '10.0.0.1')), '429 retry 20', 'not verified yet: not checked');
    assert.equal(lookups.count, before, 'nothing looked up for a spent address');
    assert.equal(status(await auth.authenticate(`Bearer ${GOOD}`, '10.0.0.1')), 'in', 'a remembered key gets in');
    assert.equal(status(await auth.authenticate(unknown(10), '10.0.0.2')), '401', 'another address has its own budget');
    assert.equal(status(await auth.authenticate(`Bearer ${LATE}`, '10.0.0.2')), 'in');
  });
});
