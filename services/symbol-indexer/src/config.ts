import { CommonEnv, commonSettings, parseEnv, type CommonSettings } from '@sextant/runtime';

/** Every environment variable of the symbol-indexer service (documented in the README table). */
export const SymbolIndexerEnv = CommonEnv;

export type SymbolIndexerConfig = CommonSettings;

export function loadConfig(env: NodeJS.ProcessEnv): SymbolIndexerConfig {
  const e = parseEnv(SymbolIndexerEnv, env);
  return commonSettings(e);
}
