import { z } from 'zod';
import { DataDirEnv, DatabaseEnv, dataDir, env, parseEnv } from '@sextant/runtime';

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

/** What `sextant scip upload` reads when its flags do not say (ADR 0056). */
export const ScipUploadEnv = z.object({
  SEXTANT_URL: env
    .url(['http', 'https'])
    .optional()
    .describe('`sextant scip upload`: the Sextant server (its base URL; default http://127.0.0.1:9100), when `--url` is not given'),
  SEXTANT_API_KEY: z
    .string()
    .optional()
    .describe('`sextant scip upload`: the API key sent as a bearer token, when `--api-key` is not given (a key of a project maintainer)'),
});
