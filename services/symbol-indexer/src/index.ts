export { SymbolIndexerModule } from './symbol-indexer.module.js';
export { SymbolIndexerEnv, loadConfig, type SymbolIndexerConfig } from './config.js';
// The store and its schema, for bench:symbol-storage (what storing the index costs, apart from the service).
export { SymbolStore, type IndexedFile } from './symbols/index/symbol.store.js';
export { MIGRATIONS, SCHEMA } from './migrations/index.js';
