export { hasPackageScope, languagesWhere, nameSpaceOf, parsedLanguages, LANGUAGES_DIR, type LanguageSpec } from './languages.js';
export { Grammars, type Grammar } from './grammars.js';
export type { ExtractOptions } from './extract-options.js';
export { chunkParsed, chunkText, CHUNK_LIMITS, type Chunk, type ChunkLimits } from './chunk.js';
export { extract, extractWith } from './extract.js';
export { localDefinitionAt, type LocalDefinition, type LocalUse } from './locals.js';
export {
  BudgetExceeded,
  KEY,
  parseReceiver,
  MAX_RECEIVER_STEPS,
  type ParsedReceiver,
  type ReceiverStep,
  SELF,
  SYMBOL_KINDS,
  type Extraction,
  type ExtractedImport,
  type ExtractedReference,
  type ImportBinding,
  type ReferenceKind,
  type ExtractedSymbol,
  type SymbolKind,
} from './extraction.js';
export {
  ParsePool,
  type ChunkHook,
  type ChunkOutcome,
  type LocalTask,
  type ParseOutcome,
  type ParsePoolOptions,
  type ParseTask,
  type SkipCause,
} from './pool.js';
export { packReferences, unpackOccurrences, type Occurrence, type PackedReferences } from './packed.js';
