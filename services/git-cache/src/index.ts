export { GitCacheModule } from './git-cache.module.js';
export { GitCacheEnv, loadConfig, type GitCacheConfig } from './config.js';
/** For bench/grep, which runs bare ripgrep with exactly the service's arguments. */
export { ripgrepArgs } from './grep/ripgrep.js';
export { DEFAULT_MAX_RESULT_BYTES, type GrepQuery } from './grep/collector.js';
