import type { z } from 'zod';
import {
  CommonEnv,
  commonSettings,
  DatabaseEnv,
  IndexerEnv,
  indexerSettings,
  type CommonSettings,
  type IndexerSettings,
} from './config.js';
import { DataDirEnv } from './data-dir.js';

/** The variables every indexing service reads (workspace-registry, symbol-indexer, vector-search): common, database, data directory, files and git. */
export const IndexingServiceEnv = CommonEnv.extend(DatabaseEnv.shape).extend(DataDirEnv.shape).extend(IndexerEnv.shape);

/** The Postgres settings of `DatabaseEnv`. */
export interface DatabaseSettings {
  url: string | undefined;
  poolSize: number;
  connectTimeoutMs: number;
}

export function databaseSettings(e: z.output<typeof DatabaseEnv>): DatabaseSettings {
  return { url: e.DATABASE_URL, poolSize: e.DATABASE_POOL_SIZE, connectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS };
}

/** The settings of `IndexingServiceEnv` every indexing service's config carries. */
export function indexingServiceSettings(
  e: z.output<typeof IndexingServiceEnv>,
  environment: NodeJS.ProcessEnv,
): CommonSettings & IndexerSettings & { database: DatabaseSettings } {
  return { ...commonSettings(e), ...indexerSettings(e, environment), database: databaseSettings(e) };
}
