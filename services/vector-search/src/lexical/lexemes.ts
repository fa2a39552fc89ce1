import { HEADER_WEIGHT, MAX_TF, type TermCounts } from './postings.js';
import { pathTokens, tokenize } from './tokenizer.js';

/** Positions kept per lexeme (Postgres keeps at most 256), and the largest position it takes. */
const MAX_POSITIONS = 64;
const MAX_POSITION = 16_383;

/**
 * The lexemes of a chunk, built from the code tokenizer rather than a
 * text-search parser (which would split `retry_failed` and lose `$scope`):
 * the header's tokens — path words and the symbol — weighted A, the body's D,
 * each with its positions. `tsvector` is the `tsvector` input (Postgres
 * ranks by it and keeps it as the record); `terms` the same occurrences as
 * BM25 term counts (what `termCounts` reads back from the `tsvector`).
 */
export function lexemes(path: string, symbol: string | null, body: string): { tsvector: string; terms: TermCounts } {
  const positions = new Map<string, string[]>();
  const terms: TermCounts = new Map();
  let at = 0;
  const add = (tokens: readonly string[], weight: 'A' | 'D') => {
    for (const token of tokens) {
      at = Math.min(at + 1, MAX_POSITION);
      const list = positions.get(token);
      if (list && list.length >= MAX_POSITIONS) continue;
      if (!list) positions.set(token, [`${at}${weight}`]);
      else list.push(`${at}${weight}`);
      terms.set(token, Math.min(MAX_TF, (terms.get(token) ?? 0) + (weight === 'A' ? HEADER_WEIGHT : 1)));
    }
  };
  add([...pathTokens(path), ...(symbol ? tokenize(symbol) : [])], 'A');
  add(tokenize(body), 'D');
  return { tsvector: [...positions].map(([token, list]) => `${quote(token)}:${list.join(',')}`).join(' '), terms };
}

/** A token as a `tsvector`/`tsquery` literal. */
export function quote(token: string): string {
  return `'${token.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}
