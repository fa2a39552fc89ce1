import { CommonEnv, parseEnv } from '@sextant/runtime';

/** Every environment variable of the workspace-registry service (documented in the README table). */
export const WorkspaceRegistryEnv = CommonEnv;

export interface WorkspaceRegistryConfig {
  natsUrl: string | undefined;
  natsPrefix: string | undefined;
  logLevel: string;
}

export function loadConfig(env: NodeJS.ProcessEnv): WorkspaceRegistryConfig {
  const e = parseEnv(WorkspaceRegistryEnv, env);
  return { natsUrl: e.NATS_URL, natsPrefix: e.SEXTANT_NATS_PREFIX, logLevel: e.LOG_LEVEL };
}
