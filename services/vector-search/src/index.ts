export { VectorSearchModule, type VectorSearchModuleOptions } from './vector-search.module.js';
export { VectorSearchEnv, loadConfig, type VectorSearchConfig } from './config.js';
