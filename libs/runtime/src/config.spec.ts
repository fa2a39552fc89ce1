import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { CommonEnv, ConfigError, DatabaseEnv, env, parseEnv, requireVariables } from './config.js';

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
