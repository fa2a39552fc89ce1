/**
 * The tools of `symbol-indexer`: one line per tool (its contract file holds
 * everything else). A contract joins this list when the service answers it;
 * the others (get_symbol_hierarchy, find_related_symbols, get_code_context, search_dependencies, analyze_change_impact,
 * list_recent_files, validate_implementation_spec) are drafted beside it.
 */
export * as LocateSymbol from './locate-symbol.js';
export * as GetFileOutline from './get-file-outline.js';
export * as FindReferences from './find-references.js';
