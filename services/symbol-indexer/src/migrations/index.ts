import { CreateSymbols1732500000000 } from './1732500000000-create-symbols.js';

/** The service's own schema. */
export const SCHEMA = 'symbol_indexer';

/** In order. A migration, once released, is never edited: add a new one. */
export const MIGRATIONS = [CreateSymbols1732500000000];
