export { startEmbedded, type Embedded } from './embedded.js';
export { EmbeddedEnv, loadConfig, type EmbeddedConfig } from './config.js';
