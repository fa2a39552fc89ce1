import { CreateSearch1732700000000 } from './1732700000000-create-search.js';

/** The service's own schema. */
export const SCHEMA = 'vector_search';

/** In order. A migration, once released, is never edited: add a new one. */
export const MIGRATIONS = [CreateSearch1732700000000];
