/**
 * The tools of `symbol-indexer`: one line per tool (its contract file holds
 * everything else).
 */
export * as LocateSymbol from './locate-symbol.js';
export * as GetFileOutline from './get-file-outline.js';
export * as FindReferences from './find-references.js';
export * as GetSymbolHierarchy from './get-symbol-hierarchy.js';
export * as FindRelatedSymbols from './find-related-symbols.js';
export * as GetCodeContext from './get-code-context.js';
export * as SearchDependencies from './search-dependencies.js';
export * as AnalyzeChangeImpact from './analyze-change-impact.js';
export * as ListRecentFiles from './list-recent-files.js';
export * as ValidateImplementationSpec from './validate-implementation-spec.js';
