import { CommonEnv, DatabaseEnv, parseEnv } from '@sextant/runtime';

/** Every environment variable of the projects service (documented in the README table). */
export const ProjectsEnv = CommonEnv.extend(DatabaseEnv.shape);

export interface ProjectsConfig {
  natsUrl: string | undefined;
  natsPrefix: string | undefined;
  logLevel: string;
  database: { url: string | undefined; poolSize: number; connectTimeoutMs: number };
}

export function loadConfig(env: NodeJS.ProcessEnv): ProjectsConfig {
  const e = parseEnv(ProjectsEnv, env);
  return {
    natsUrl: e.NATS_URL,
    natsPrefix: e.SEXTANT_NATS_PREFIX,
    logLevel: e.LOG_LEVEL,
    database: { url: e.DATABASE_URL, poolSize: e.DATABASE_POOL_SIZE, connectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS },
  };
}
