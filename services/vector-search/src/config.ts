import { CommonEnv, commonSettings, parseEnv, type CommonSettings } from '@sextant/runtime';

/** Every environment variable of the vector-search service (documented in the README table). */
export const VectorSearchEnv = CommonEnv;

export type VectorSearchConfig = CommonSettings;

export function loadConfig(env: NodeJS.ProcessEnv): VectorSearchConfig {
  const e = parseEnv(VectorSearchEnv, env);
  return commonSettings(e);
}
