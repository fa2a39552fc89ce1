import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SERVICE_NAMES } from '@sextant/contracts';
import { DEFAULT_SERVICES, isLoopback, loadConfig } from './config.js';

describe('DEFAULT_SERVICES (SEXTANT_SERVICES unset)', () => {
  it('is every service: each implements tools', () => {
    assert.deepEqual([...DEFAULT_SERVICES].sort(), [...SERVICE_NAMES].sort());
  });
});

describe('isLoopback (SEXTANT_HOST)', () => {
  it('accepts localhost, 127.0.0.0/8, ::1 and IPv4-mapped loopback', () => {
    for (const host of ['localhost', 'LOCALHOST', '127.0.0.1', '127.1.2.3', '127.255.255.254', '::1', '[::1]', '0:0:0:0:0:0:0:1']) {
      assert.equal(isLoopback(host), true, host);
    }
    for (const host of ['::ffff:127.0.0.1', '[::ffff:127.0.0.2]', '::ffff:7f00:1', '0:0:0:0:0:ffff:127.0.0.1']) {
      assert.equal(isLoopback(host), true, host);
    }
  });

  it('refuses names that only look like loopback, and routable addresses', () => {
    for (const host of [
      '127.evil.com',
      '127.0.0.1.nip.io',
      '127.0.0.1.',
      '127.0.0.256',
      '1127.0.0.1',
      'localhost.evil.com',
      '0.0.0.0',
      '::',
      '10.0.0.1',
      '::ffff:10.0.0.1',
      '::ffff:a00:1',
      '::2',
      '',
    ]) {
      assert.equal(isLoopback(host), false, host);
    }
  });

  it('refuses SEXTANT_AUTH=off on 127.evil.com, and accepts any Host there', () => {
    assert.throws(
      () => loadConfig({ NATS_URL: 'nats://127.0.0.1:4222', SEXTANT_HOST: '127.evil.com', SEXTANT_AUTH: 'off' }),
      /SEXTANT_AUTH is off, which only a gateway listening on loopback may be/,
    );
    assert.equal(loadConfig({ NATS_URL: 'nats://127.0.0.1:4222', SEXTANT_HOST: '127.evil.com' }).allowedHosts, null);
    assert.deepEqual(loadConfig({ NATS_URL: 'nats://127.0.0.1:4222', SEXTANT_HOST: '127.0.0.5', SEXTANT_AUTH: 'off' }).auth, {
      mode: 'off',
    });
  });
});
