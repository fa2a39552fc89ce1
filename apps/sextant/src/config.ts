import { DataDirEnv, DatabaseEnv, dataDir, parseEnv } from '@sextant/runtime';

/** Variables embedded mode reads itself; the services' own variables are read by their config (docs/configuration.md). */
export const EmbeddedEnv = DatabaseEnv.pick({ DATABASE_URL: true }).extend(DataDirEnv.shape);

export interface EmbeddedConfig {
  /** Absolute; per user unless SEXTANT_DATA_DIR says otherwise. */
  dataDir: string;
  /** Set: use this Postgres instead of the embedded PGlite. */
  databaseUrl: string | undefined;
}

export function loadConfig(env: NodeJS.ProcessEnv): EmbeddedConfig {
  const e = parseEnv(EmbeddedEnv, env);
  return { dataDir: dataDir(e.SEXTANT_DATA_DIR, env), databaseUrl: e.DATABASE_URL };
}
