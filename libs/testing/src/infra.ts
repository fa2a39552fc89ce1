import { existsSync } from 'node:fs';
import { connect as netConnect } from 'node:net';

export interface Infrastructure {
  natsUrl: string;
  /** Admin URL of a Postgres server where test databases can be created. */
  postgresUrl: string;
  /** Where the URLs came from, for the test log. */
  source: 'environment' | 'local services' | 'testcontainers';
  stop(): Promise<void>;
}

const LOCAL = { nats: 'nats://127.0.0.1:4222', postgres: 'postgres://postgres@127.0.0.1:5432/test' };

/**
 * The real NATS and Postgres the integration tests use:
 * `TEST_NATS_URL`/`TEST_DATABASE_URL` when set; else the standard local
 * ports when something listens there; else containers started with
 * Testcontainers where a container runtime exists. Never a fake, never a
 * silent skip: with none of the three, it throws and the test fails.
 * `SEXTANT_TEST_INFRA=containers` takes containers whatever else runs
 * (scripts/run-tests.mjs's second pass).
 */
export async function infrastructure(env: NodeJS.ProcessEnv = process.env): Promise<Infrastructure> {
  if (env.SEXTANT_TEST_INFRA === 'containers') return fromContainers();
  if (env.TEST_NATS_URL && env.TEST_DATABASE_URL) {
    return { natsUrl: env.TEST_NATS_URL, postgresUrl: env.TEST_DATABASE_URL, source: 'environment', stop: async () => undefined };
  }
  if ((await listening(4222)) && (await listening(5432))) {
    return { natsUrl: LOCAL.nats, postgresUrl: LOCAL.postgres, source: 'local services', stop: async () => undefined };
  }
  return fromContainers();
}

function listening(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = netConnect({ port, host });
    socket.setTimeout(500);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

async function fromContainers(): Promise<Infrastructure> {
  // Ryuk (the reaper of containers a crashed test process leaves) is an image of a registry: off unless the
  // environment names one (a local stand-in); each suite stops its containers in stop(). Inside a container (this
  // machine has a /.dockerenv), Testcontainers would look for the ports on the bridge gateway: they are on localhost.
  process.env.TESTCONTAINERS_RYUK_DISABLED ??= process.env.RYUK_CONTAINER_IMAGE ? 'false' : 'true';
  if (existsSync('/.dockerenv')) process.env.TESTCONTAINERS_HOST_OVERRIDE ??= 'localhost';
  let tc: typeof import('testcontainers');
  try {
    tc = await import('testcontainers');
  } catch {
    throw new Error('No NATS/Postgres: set TEST_NATS_URL and TEST_DATABASE_URL, run them locally, or install testcontainers.');
  }
  try {
    // The alpine tag (the plain one is a scratch image); ready when it logs so: the default wait checks the port from
    // inside the container with a shell, which only some images have.
    const nats = await new tc.GenericContainer('nats:2.11-alpine')
      .withCommand(['-js'])
      .withExposedPorts(4222)
      .withWaitStrategy(tc.Wait.forLogMessage(/Server is ready/))
      .start();
    const pg = await new tc.GenericContainer('pgvector/pgvector:pg16')
      .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust', POSTGRES_DB: 'test' })
      .withExposedPorts(5432)
      .withWaitStrategy(tc.Wait.forLogMessage(/ready to accept connections/, 2))
      .start();
    return {
      natsUrl: `nats://${nats.getHost()}:${nats.getMappedPort(4222)}`,
      postgresUrl: `postgres://postgres@${pg.getHost()}:${pg.getMappedPort(5432)}/test`,
      source: 'testcontainers',
      stop: async () => {
        await Promise.all([nats.stop(), pg.stop()]);
      },
    };
  } catch (error) {
    throw new Error(
      `No NATS/Postgres: TEST_NATS_URL/TEST_DATABASE_URL are unset, nothing listens on 127.0.0.1:4222/5432, ` +
        `and Testcontainers failed (${(error as Error).message}).`,
    );
  }
}
