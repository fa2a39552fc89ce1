export {
  CommonEnv,
  commonSettings,
  type CommonSettings,
  ConfigError,
  DatabaseEnv,
  env,
  IndexerEnv,
  indexerSettings,
  type IndexerSettings,
  parseEnv,
  requireVariables,
  StartupError,
} from './config.js';
export { envDoc, renderEnvSections, undocumentedEnv, type EnvDoc, type EnvSection } from './env-docs.js';
export { HeapEnv } from './heap.js';
export { WorkLimitsEnv } from './work-limits.js';
export { DataDirEnv, dataDir, lockDataDir, processAlive, type DataDirLock } from './data-dir.js';
export { JsonLogger } from './logger.js';
export { ModuleLifecycle, stageLifecycle, type Lifecycle } from './lifecycle.js';
export { databaseSettings, IndexingServiceEnv, indexingServiceSettings, type DatabaseSettings } from './indexing-env.js';
export {
  createHealthController,
  HEALTH_DETAILS,
  HEALTH_PROBES,
  HealthReporter,
  MESSAGE_SERVER,
  ServiceRuntimeModule,
  type HealthDetails,
  type HealthProbe,
} from './health.js';
export { runMain, serviceShard, startService, stopOnSignals, type Shutdown, type StartServiceOptions } from './bootstrap.js';
export { SEXTANT_VERSION } from './version.js';
