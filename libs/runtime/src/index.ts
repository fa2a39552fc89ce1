export { CommonEnv, commonSettings, type CommonSettings, ConfigError, DataDirEnv, DatabaseEnv, dataDir, env, parseEnv, requireVariables, StartupError } from './config.js';
export { JsonLogger } from './logger.js';
export { createHealthController, HEALTH_PROBES, HealthReporter, MESSAGE_SERVER, ServiceRuntimeModule, type HealthProbe } from './health.js';
export { runMain, runService, type RunServiceOptions } from './bootstrap.js';
export { SEXTANT_VERSION } from './version.js';
