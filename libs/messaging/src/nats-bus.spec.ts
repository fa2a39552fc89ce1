import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { shownServers } from './nats-bus.js';

describe('shownServers', () => {
  it('hides the user and password (or token) of each URL, and keeps the rest', () => {
    assert.equal(
      shownServers('nats://app:s3cret@nats-0:4222, tls://tok3n@nats-1:4443,nats://nats-2:4222'),
      'nats://***@nats-0:4222,tls://***@nats-1:4443,nats://nats-2:4222',
    );
  });

  it('leaves a URL without credentials as it is, even with an @ in its path', () => {
    assert.equal(shownServers('ws://nats:8080/a@b'), 'ws://nats:8080/a@b');
  });
});
