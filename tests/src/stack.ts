import { randomBytes } from 'node:crypto';
import {
  createTestDatabase,
  infrastructure,
  startGateway,
  startService,
  type Infrastructure,
  type RunningProcess,
  type TestDatabase,
} from '@sextant/testing';

export interface Stack {
  infra: Infrastructure;
  database: TestDatabase;
  /** SEXTANT_NATS_PREFIX of this stack: nothing outside it answers its subjects. */
  prefix: string;
  gateway?: { url: string; process: RunningProcess };
  services: Map<string, RunningProcess>;
  /** Starts (another replica of) a service in this stack. */
  startService(name: string, env?: Record<string, string | undefined>): Promise<RunningProcess>;
  startGateway(env?: Record<string, string | undefined>): Promise<{ url: string; process: RunningProcess }>;
  stop(): Promise<void>;
}

/**
 * Distributed Sextant for a suite: a fresh database, its own NATS subject
 * prefix, and whichever processes the suite starts. `stop()` ends them all.
 */
export async function distributedStack(): Promise<Stack> {
  const infra = await infrastructure();
  const database = await createTestDatabase(infra.postgresUrl);
  const prefix = `test${randomBytes(4).toString('hex')}`;
  const processes: RunningProcess[] = [];
  const stack: Stack = {
    infra,
    database,
    prefix,
    services: new Map(),
    async startService(name, env = {}) {
      const process = await startService(name, {
        NATS_URL: infra.natsUrl,
        SEXTANT_NATS_PREFIX: prefix,
        ...(['projects', 'workspace-registry', 'symbol-indexer', 'vector-search'].includes(name) ? { DATABASE_URL: database.url } : {}),
        // A registry alone runs jobs without stages; a suite that starts symbol-indexer says SEXTANT_INDEXING_STAGES=symbols.
        ...(name === 'workspace-registry' ? { SEXTANT_INDEXING_STAGES: 'none' } : {}),
        ...env,
      });
      processes.push(process);
      stack.services.set(name, process);
      return process;
    },
    async startGateway(env = {}) {
      const gateway = await startGateway(infra.natsUrl, { SEXTANT_NATS_PREFIX: prefix, ...env });
      processes.push(gateway.process);
      stack.gateway = gateway;
      return gateway;
    },
    async stop() {
      await Promise.all(processes.map((p) => p.stop()));
      await database.drop();
      await infra.stop();
    },
  };
  return stack;
}
