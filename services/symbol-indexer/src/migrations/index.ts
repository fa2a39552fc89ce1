import { CreateSymbols1732500000000 } from './1732500000000-create-symbols.js';
import { AddReferences1732600000000 } from './1732600000000-add-references.js';
import { AddReturns1732700000000 } from './1732700000000-add-returns.js';
import { BindingLookups1732800000000 } from './1732800000000-binding-lookups.js';
import { PathPrefix1732900000000 } from './1732900000000-path-prefix.js';
import { PreciseTier1733000000000 } from './1733000000000-precise-tier.js';
import { ScipUploads1733100000000 } from './1733100000000-scip-uploads.js';
import { RelationshipKinds1733200000000 } from './1733200000000-relationship-kinds.js';
import { RefsByFile1733300000000 } from './1733300000000-refs-by-file.js';

/** The service's own schema. */
export const SCHEMA = 'symbol_indexer';

/** In order. A migration, once released, is never edited: add a new one. */
export const MIGRATIONS = [
  CreateSymbols1732500000000,
  AddReferences1732600000000,
  AddReturns1732700000000,
  BindingLookups1732800000000,
  PathPrefix1732900000000,
  PreciseTier1733000000000,
  ScipUploads1733100000000,
  RelationshipKinds1733200000000,
  RefsByFile1733300000000,
];
