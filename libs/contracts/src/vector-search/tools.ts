/** The tools of `vector-search`: one line per tool (its contract file holds everything else). */
export * as SearchCode from './search-code.js';
export * as AskCode from './ask-code.js';
