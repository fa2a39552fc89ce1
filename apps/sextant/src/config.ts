import { z } from 'zod';
import { DatabaseEnv, parseEnv } from '@sextant/runtime';

/** Variables only embedded mode reads; the services' own variables are read by their config. */
export const EmbeddedEnv = DatabaseEnv.pick({ DATABASE_URL: true }).extend({
  SEXTANT_DATA_DIR: z.string().min(1).default('./.sextant'),
});

export interface EmbeddedConfig {
  dataDir: string;
  /** Set: use this Postgres instead of the embedded PGlite. */
  databaseUrl: string | undefined;
}

export function loadConfig(env: NodeJS.ProcessEnv): EmbeddedConfig {
  const e = parseEnv(EmbeddedEnv, env);
  return { dataDir: e.SEXTANT_DATA_DIR, databaseUrl: e.DATABASE_URL };
}
