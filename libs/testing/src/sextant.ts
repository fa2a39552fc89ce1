import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNode, type RunningProcess } from './processes.js';

/** The log line each entry point prints when ready; its first group is the MCP URL. */
export const READY = {
  embedded: /MCP endpoint ready at (http:\/\/\S+\/mcp)/,
  gateway: /MCP gateway at (http:\/\/\S+\/mcp)/,
  service: /listening on NATS/,
};

export interface Sextant {
  url: string;
  process: RunningProcess;
  dataDir: string;
  stop(): Promise<void>;
}

/** The bus secret the processes a test starts share (SEXTANT_BUS_SECRET), unless the test gives its own. */
/**
 * The URL of the one-process mode's embedded Postgres, for a test's own queries: its Unix socket lives in
 * `<data dir>/postgres/socket` (ADR 0004; a data directory short enough for a socket path, as tests' are).
 */
export function embeddedDatabaseUrl(dataDir: string): string {
  return `postgres://postgres@localhost/postgres?host=${encodeURIComponent(join(dataDir, 'postgres', 'socket'))}`;
}

export const TEST_BUS_SECRET = 'sextant-tests-bus-secret-0123456789abcdef';

/**
 * Embedded mode as a user starts it (`node apps/sextant/dist/main.js`), on an
 * ephemeral port. Without SEXTANT_DATA_DIR in `env`, a temporary data directory
 * is made and removed at `stop()`; a given one is kept.
 */
export async function startEmbedded(env: Record<string, string | undefined> = {}): Promise<Sextant> {
  const ownDir = env.SEXTANT_DATA_DIR === undefined;
  const dataDir = env.SEXTANT_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'sextant-e2e-'));
  const process = await startNode('apps/sextant/dist/main.js', [], {
    // Not in this checkout: a git repository it runs in would be its default workspace (give SEXTANT_WORKSPACE for one).
    cwd: tmpdir(),
    // Authentication off (on loopback) unless a suite turns it on: most suites test tools, not callers.
    env: { SEXTANT_PORT: '0', SEXTANT_DATA_DIR: dataDir, LOG_LEVEL: 'info', SEXTANT_AUTH: 'off', ...env },
    readyWhen: READY.embedded,
    timeoutMs: 60_000,
  });
  const url = (await process.waitFor(READY.embedded))[1];
  return {
    url,
    process,
    dataDir,
    async stop() {
      await process.stop();
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The gateway as its own process, reaching services over NATS. */
export async function startGateway(
  natsUrl: string,
  env: Record<string, string | undefined> = {},
  nodeArgs: string[] = [],
): Promise<{ url: string; process: RunningProcess }> {
  const process = await startNode('services/gateway/dist/main.js', [], {
    nodeArgs,
    env: { NATS_URL: natsUrl, SEXTANT_PORT: '0', LOG_LEVEL: 'info', SEXTANT_AUTH: 'off', SEXTANT_BUS_SECRET: TEST_BUS_SECRET, ...env },
    readyWhen: READY.gateway,
    timeoutMs: 30_000,
  });
  return { url: (await process.waitFor(READY.gateway))[1], process };
}

/**
 * One service as its own process (`services/<name>/dist/main.js`), ready once subscribed on NATS. It runs in the
 * system's temporary directory, as a service in a container would, not in this checkout: workspace-registry takes
 * the git repository it runs in as its default workspace.
 */
export function startService(name: string, env: Record<string, string | undefined>): Promise<RunningProcess> {
  return startNode(`services/${name}/dist/main.js`, [], {
    cwd: tmpdir(),
    env: { LOG_LEVEL: 'info', SEXTANT_BUS_SECRET: TEST_BUS_SECRET, ...env },
    readyWhen: READY.service,
    timeoutMs: 30_000,
  });
}
