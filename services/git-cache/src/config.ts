import { CommonEnv, parseEnv } from '@sextant/runtime';

/** Every environment variable of the git-cache service (documented in the README table). */
export const GitCacheEnv = CommonEnv;

export interface GitCacheConfig {
  natsUrl: string | undefined;
  natsPrefix: string | undefined;
  logLevel: string;
}

export function loadConfig(env: NodeJS.ProcessEnv): GitCacheConfig {
  const e = parseEnv(GitCacheEnv, env);
  return { natsUrl: e.NATS_URL, natsPrefix: e.SEXTANT_NATS_PREFIX, logLevel: e.LOG_LEVEL };
}
