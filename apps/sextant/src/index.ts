export { startEmbedded, withFlags, type Embedded } from './embedded.js';
export { EmbeddedEnv, loadConfig, type EmbeddedConfig } from './config.js';
export { GENERATED_DOCUMENTS } from './docs/documents.js';
