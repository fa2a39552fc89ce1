import { pathTokens, tokenize } from './tokenizer.js';

/** Positions kept per lexeme (Postgres keeps at most 256), and the largest position it takes. */
const MAX_POSITIONS = 64;
const MAX_POSITION = 16_383;

/**
 * The `tsvector` input of a chunk, built from the code tokenizer rather than
 * a text-search parser (which would split `retry_failed` and lose `$scope`):
 * the header's tokens — path words and the symbol — weighted A, the body's D,
 * each with its positions (term frequency counts in ranking).
 */
export function lexemes(path: string, symbol: string | null, body: string): string {
  const positions = new Map<string, string[]>();
  let at = 0;
  const add = (tokens: readonly string[], weight: 'A' | 'D') => {
    for (const token of tokens) {
      at = Math.min(at + 1, MAX_POSITION);
      const list = positions.get(token);
      if (!list) positions.set(token, [`${at}${weight}`]);
      else if (list.length < MAX_POSITIONS) list.push(`${at}${weight}`);
    }
  };
  add([...pathTokens(path), ...(symbol ? tokenize(symbol) : [])], 'A');
  add(tokenize(body), 'D');
  return [...positions].map(([token, list]) => `${quote(token)}:${list.join(',')}`).join(' ');
}

/** A token as a `tsvector`/`tsquery` literal. */
function quote(token: string): string {
  return `'${token.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}
