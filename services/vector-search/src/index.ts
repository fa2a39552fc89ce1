export { VectorSearchModule } from './vector-search.module.js';
export { VectorSearchEnv, loadConfig, type VectorSearchConfig } from './config.js';
