import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { commonSettings, CommonEnv, ConfigError, DatabaseEnv, env, parseEnv, requireVariables } from './config.js';
import { serviceShard } from './bootstrap.js';

describe('parseEnv', () => {
  const Schema = CommonEnv.extend(DatabaseEnv.shape).extend({ PORT: env.int(0, 65_535).default(9100), FLAG: env.bool().optional() });

  it('applies defaults and coerces', () => {
    const parsed = parseEnv(Schema, { PORT: '8080', FLAG: 'yes', NATS_URL: 'nats://a:4222,nats://b:4222' });
    assert.equal(parsed.PORT, 8080);
    assert.equal(parsed.FLAG, true);
    assert.equal(parsed.LOG_LEVEL, 'info');
    assert.equal(parsed.SEXTANT_BUS_TIMEOUT_MS, 30_000);
    assert.equal(parsed.DATABASE_POOL_SIZE, 10);
  });

  it('treats empty strings as unset', () => {
    assert.equal(parseEnv(Schema, { PORT: '' }).PORT, 9100);
  });

  it('names every bad variable in one error', () => {
    assert.throws(
      () => parseEnv(Schema, { PORT: 'eighty', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud', SEXTANT_NATS_PREFIX: 'a b' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.deepEqual(Object.keys(error.problems).sort(), ['DATABASE_URL', 'LOG_LEVEL', 'PORT', 'SEXTANT_NATS_PREFIX']);
        assert.match(error.message, /DATABASE_URL is invalid: must be a URL starting with postgres:\/\/ or postgresql:\/\//);
        return true;
      },
    );
  });

  it('says which required variable is missing', () => {
    assert.throws(() => parseEnv(z.object({ NEEDED: z.string() }), {}), /NEEDED is required/);
    assert.throws(
      () => requireVariables({ NATS_URL: undefined }, ['NATS_URL']),
      /NATS_URL is required when the service runs as its own process/,
    );
  });
});

describe('shards (SEXTANT_SHARDS, SEXTANT_SHARD)', () => {
  const settings = (environment: NodeJS.ProcessEnv) => commonSettings(parseEnv(CommonEnv, environment));

  it('reads the shard counts and this process’s shard, `auto` from a StatefulSet pod’s hostname', () => {
    assert.deepEqual(settings({}).shards, {});
    const s = settings({ SEXTANT_SHARDS: 'git-cache=4, symbol-indexer=2', SEXTANT_SHARD: 'auto', HOSTNAME: 'git-cache-3' });
    assert.deepEqual([s.shards, s.shard], [{ 'git-cache': 4, 'symbol-indexer': 2 }, 3]);
    assert.deepEqual(serviceShard('git-cache', s), { index: 3, count: 4 });
    assert.equal(serviceShard('projects', s), undefined, 'a service not named runs unsharded');
  });

  it('refuses bad counts, a missing or out-of-range shard, and `auto` without an ordinal', () => {
    const problem = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        assert.ok(error instanceof ConfigError);
        return error.message;
      }
      assert.fail('no ConfigError');
    };
    assert.match(
      problem(() => settings({ SEXTANT_SHARDS: 'git-cache=0' })),
      /SEXTANT_SHARDS .*"git-cache=0" is not service=count/,
    );
    assert.match(
      problem(() => settings({ SEXTANT_SHARDS: 'git-cache' })),
      /SEXTANT_SHARDS/,
    );
    assert.match(
      problem(() => settings({ SEXTANT_SHARD: 'auto', HOSTNAME: 'laptop' })),
      /SEXTANT_SHARD is "auto".*HOSTNAME is "laptop"/,
    );
    const four = settings({ SEXTANT_SHARDS: 'git-cache=4' });
    assert.match(
      problem(() => serviceShard('git-cache', four)),
      /SEXTANT_SHARD is required: SEXTANT_SHARDS runs git-cache as 4 shards/,
    );
    assert.match(
      problem(() => serviceShard('git-cache', { ...four, shard: 4 })),
      /SEXTANT_SHARD is 4, but .* \(0 to 3\)/,
    );
  });
});
