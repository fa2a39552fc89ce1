export { SymbolIndexerModule } from './symbol-indexer.module.js';
export { SymbolIndexerEnv, loadConfig, type SymbolIndexerConfig } from './config.js';
