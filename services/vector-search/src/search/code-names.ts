/**
 * The names of code a query spells as code (issue 38, symbols as a signal): what an agent writes when it means a
 * definition — `backticked`, qualified (`Request.hooks`, `c.Param`), snake_case (`url_for`), camelCase (`onRequest`)
 * or with inner capitals (`ServeHTTP`, `PreparedRequest`). A plain word, capitalized or not ("Request", "Python"), is
 * not one: it is as often prose.
 */

/** What a query names, to look up among the chunks' symbols (`ChunkStore.definitions`). */
export interface CodeNames {
  /** Names a chunk's symbol equals: each name as written, and the owner of a qualified one (`Request` of `Request.hooks`). */
  exact: string[];
  /** Names a chunk's symbol ends with (`.name`): unqualified ones, which a method or member may carry. */
  last: string[];
}

const IDENTIFIER = /[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*/g;
/** snake_case, camelCase, or two capitals apart (PascalCase of two words, ServeHTTP). */
const CODE_SHAPED = /^(?:[A-Za-z0-9]*_[A-Za-z0-9_]*[A-Za-z0-9]|_[A-Za-z0-9_]+|[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*|[A-Z]{2,}[a-z][A-Za-z0-9]*)$/;
/** Names at most, per query. */
const MAX_NAMES = 8;
/** A qualified name ending with one of these is a file's name (`models.py`), not a member. */
const FILE_EXTENSIONS = new Set(['py', 'js', 'mjs', 'cjs', 'ts', 'tsx', 'jsx', 'go', 'rs', 'rb', 'java', 'md', 'json', 'yaml', 'yml', 'toml', 'html', 'css']);

export function codeNames(query: string): CodeNames {
  const exact = new Set<string>();
  const last = new Set<string>();
  const quoted = new Set([...query.matchAll(/`([^`]+)`/g)].flatMap((m) => m[1].match(IDENTIFIER) ?? []));
  for (const word of query.match(IDENTIFIER) ?? []) {
    if (exact.size >= MAX_NAMES) break;
    const parts = word.split('.');
    // A trailing dot is the sentence's; "e.g" and version-like words are not code.
    if (parts.length > 1 && parts.every((p) => p.length > 1 && !/^\d/.test(p)) && !FILE_EXTENSIONS.has(parts.at(-1)!)) {
      exact.add(word);
      exact.add(parts.slice(0, -1).join('.'));
    } else if (parts.length === 1 && (quoted.has(word) || CODE_SHAPED.test(word)) && word.length > 2) {
      exact.add(word);
      last.add(word);
    }
  }
  return { exact: [...exact], last: [...last] };
}

/**
 * In hybrid search, the default weight (SEARCH_DEFINITION_WEIGHT) of the definitions the query names as code
 * (`codeNames`: `Request.hooks`, `url_for`, `ServeHTTP`), a list of their chunks found by symbol. Six retrieval sets:
 * mean MRR 0.704 at 0, 1, 2, 4, 6 and 8; requests' queries without a file-name leak 0.430 → 0.450 at 6 and 8 (the
 * floor is 0.430), hono 0.750 → 0.716–0.727 (ADR 0049).
 */
export const DEFINITION_WEIGHT = 6;

/** A name that more definitions than this carry says little about which one is meant (`type`, `handle`): left out. */
const MAX_DEFINITIONS = 5;
/** Chunks looked up per name (`ChunkStore.definitions`): one more than a name may carry, to tell it is too many. */
export const DEFINITIONS_PER_NAME = MAX_DEFINITIONS + 1;

/**
 * The chunks found for `names` (`ChunkStore.definitions`), ranked: a symbol equal to a name before one that only ends
 * with it, then the names fewer definitions carry first; a name carried by more than MAX_DEFINITIONS is dropped.
 */
export function rankDefinitions<T extends { symbol: string | null; path: string; ordinal: number }>(found: readonly T[], names: CodeNames): T[] {
  const exact = new Set(names.exact);
  const nameOf = (h: T) => (exact.has(h.symbol ?? '') ? h.symbol! : (h.symbol ?? '').split('.').at(-1)!);
  const carried = new Map<string, number>();
  for (const h of found) carried.set(nameOf(h), (carried.get(nameOf(h)) ?? 0) + 1);
  return found
    .filter((h) => carried.get(nameOf(h))! <= MAX_DEFINITIONS)
    .map((h) => ({ h, exact: exact.has(h.symbol ?? '') ? 0 : 1, carried: carried.get(nameOf(h))! }))
    .sort((a, b) => a.exact - b.exact || a.carried - b.carried || a.h.path.localeCompare(b.h.path) || a.h.ordinal - b.h.ordinal)
    .map(({ h }) => h);
}
