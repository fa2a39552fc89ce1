/** A bad or missing variable stops start-up with its name in the message (exit code 2), for every entry point. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startNode } from '@sextant/testing';

/** Asserts the refusal; resolves with what the process wrote. */
async function refusal(script: string, env: Record<string, string>, ...expected: RegExp[]): Promise<string> {
  const process = await startNode(script, [], { env });
  assert.equal(await process.exited, 2, process.output());
  for (const pattern of expected) assert.match(process.output(), pattern);
  assert.doesNotMatch(process.output(), /\n\s+at /, 'no stack trace');
  return process.output();
}

async function refuses(script: string, env: Record<string, string>, ...expected: RegExp[]): Promise<void> {
  await refusal(script, env, ...expected);
}

describe('configuration errors', () => {
  it('gateway: NATS_URL missing, port not a number', () =>
    refuses('services/gateway/dist/main.js', { SEXTANT_PORT: 'eighty' }, /SEXTANT_PORT is invalid: must be an integer/));

  it('gateway: NATS_URL is required in distributed mode', () =>
    refuses('services/gateway/dist/main.js', {}, /NATS_URL is required when the service runs as its own process/));

  it('projects: DATABASE_URL of the wrong kind and a bad pool size, both named', () =>
    refuses(
      'services/projects/dist/main.js',
      { NATS_URL: 'nats://127.0.0.1:4222', DATABASE_URL: 'mysql://root@localhost/x', DATABASE_POOL_SIZE: '0' },
      /DATABASE_URL is invalid/,
      /DATABASE_POOL_SIZE is invalid: must be >= 1/,
    ));

  it('gateway and embedded: authentication off on a routable address, an issuer without an audience', async () => {
    for (const script of ['services/gateway/dist/main.js', 'apps/sextant/dist/main.js']) {
      await refuses(
        script,
        { NATS_URL: 'nats://127.0.0.1:4222', SEXTANT_HOST: '0.0.0.0', SEXTANT_AUTH: 'off' },
        /SEXTANT_AUTH is off, which only a gateway listening on loopback may be; SEXTANT_HOST is 0\.0\.0\.0/,
      );
    }
    await refuses(
      'services/gateway/dist/main.js',
      { NATS_URL: 'nats://127.0.0.1:4222', SEXTANT_AUTH_ISSUER: 'https://idp.example', SEXTANT_AUTH_ALGORITHMS: 'HS256' },
      /SEXTANT_AUTH_ALGORITHMS is invalid: must be a comma-separated list of asymmetric JWS algorithms/,
    );
    await refuses(
      'services/gateway/dist/main.js',
      { NATS_URL: 'nats://127.0.0.1:4222', SEXTANT_AUTH_GROUP_ROLES: 'platform=admin,team=web:owner' },
      /SEXTANT_AUTH_GROUP_ROLES is invalid: .*team=web:owner.* is not group=admin or group=project:reader\|maintainer/,
    );
    await refuses(
      'services/gateway/dist/main.js',
      { NATS_URL: 'nats://127.0.0.1:4222', SEXTANT_AUTH_ISSUER: 'https://idp.example' },
      /SEXTANT_AUTH_AUDIENCE is required with SEXTANT_AUTH_ISSUER/,
    );
  });

  it('a service or gateway on NATS: the bus secret is required, and long enough', async () => {
    await refuses('services/git-cache/dist/main.js', { NATS_URL: 'nats://127.0.0.1:4222' }, /SEXTANT_BUS_SECRET is required/);
    await refuses(
      'services/gateway/dist/main.js',
      { NATS_URL: 'nats://127.0.0.1:4222', SEXTANT_BUS_SECRET: 'short' },
      /SEXTANT_BUS_SECRET is invalid: must be at least 32 characters/,
    );
  });

  it('embedded: a bad log level and body limit', () =>
    refuses(
      'apps/sextant/dist/main.js',
      { LOG_LEVEL: 'chatty', SEXTANT_MAX_BODY_BYTES: '12' },
      /LOG_LEVEL is invalid/,
      /SEXTANT_MAX_BODY_BYTES is invalid/,
    ));

  it('a service or gateway: credentials written into NATS_URL are refused, and not echoed', async () => {
    for (const script of ['services/projects/dist/main.js', 'services/gateway/dist/main.js']) {
      const output = await refusal(
        script,
        { NATS_URL: 'nats://sextant:url-secret-0451@nats:4222' },
        /NATS_URL is invalid: must not carry a user, password or token .*NATS_USER\/NATS_PASSWORD/,
      );
      assert.doesNotMatch(output, /url-secret-0451/);
    }
  });

  it('a stub service: NATS_URL malformed', () =>
    refuses(
      'services/git-cache/dist/main.js',
      { NATS_URL: 'http://nats:4222' },
      /NATS_URL is invalid: must be a URL starting with nats:\/\//,
    ));
});
