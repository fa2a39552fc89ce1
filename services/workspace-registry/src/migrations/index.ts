import { jobTablesMigration } from '@sextant/jobs';
import { CreateRegistry1732400000000 } from './1732400000000-create-registry.js';
import { RepositoryIdentity1764200000000 } from './1764200000000-repository-identity.js';

/** The service's own schema. */
export const SCHEMA = 'workspace_registry';

/** In order. A migration, once released, is never edited: add a new one. */
export const MIGRATIONS = [jobTablesMigration(SCHEMA), CreateRegistry1732400000000, RepositoryIdentity1764200000000];
