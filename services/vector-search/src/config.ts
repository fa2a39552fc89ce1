import { CommonEnv, parseEnv } from '@sextant/runtime';

/** Every environment variable of the vector-search service (documented in the README table). */
export const VectorSearchEnv = CommonEnv;

export interface VectorSearchConfig {
  natsUrl: string | undefined;
  natsPrefix: string | undefined;
  logLevel: string;
}

export function loadConfig(env: NodeJS.ProcessEnv): VectorSearchConfig {
  const e = parseEnv(VectorSearchEnv, env);
  return { natsUrl: e.NATS_URL, natsPrefix: e.SEXTANT_NATS_PREFIX, logLevel: e.LOG_LEVEL };
}
