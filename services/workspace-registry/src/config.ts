import { CommonEnv, commonSettings, parseEnv, type CommonSettings } from '@sextant/runtime';

/** Every environment variable of the workspace-registry service (documented in the README table). */
export const WorkspaceRegistryEnv = CommonEnv;

export type WorkspaceRegistryConfig = CommonSettings;

export function loadConfig(env: NodeJS.ProcessEnv): WorkspaceRegistryConfig {
  const e = parseEnv(WorkspaceRegistryEnv, env);
  return commonSettings(e);
}
