import { CommonEnv, parseEnv } from '@sextant/runtime';

/** Every environment variable of the symbol-indexer service (documented in the README table). */
export const SymbolIndexerEnv = CommonEnv;

export interface SymbolIndexerConfig {
  natsUrl: string | undefined;
  natsPrefix: string | undefined;
  logLevel: string;
}

export function loadConfig(env: NodeJS.ProcessEnv): SymbolIndexerConfig {
  const e = parseEnv(SymbolIndexerEnv, env);
  return { natsUrl: e.NATS_URL, natsPrefix: e.SEXTANT_NATS_PREFIX, logLevel: e.LOG_LEVEL };
}
