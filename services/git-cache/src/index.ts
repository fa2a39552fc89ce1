export { GitCacheModule } from './git-cache.module.js';
export { GitCacheEnv, loadConfig, type GitCacheConfig } from './config.js';
