import type { OutlineNode, SymbolDef } from '@sextant/contracts';

/** Counts the tokens of a text. */
export type TokenCounter = (text: string) => number;

let loading: Promise<TokenCounter> | undefined;

/**
 * The tokenizer `max_tokens` is counted with: OpenAI's cl100k_base BPE, from
 * `gpt-tokenizer` (pure JavaScript, its ranks inside the package: nothing is
 * downloaded). No agent's own tokenizer is public for every model; this one
 * counts code a little higher than the newer o200k_base, so a budget it keeps
 * is rather kept than overrun elsewhere. Loaded on first use (~0.4 s), not
 * at start-up.
 */
export function tokenCounter(): Promise<TokenCounter> {
  loading ??= import('gpt-tokenizer/encoding/cl100k_base').then(
    ({ countTokens }) =>
      (text: string) =>
        countTokens(text),
  );
  return loading;
}

/** What a get_code_context answer is made of, before it is sized. */
export interface ContextParts {
  /** The fields every answer carries, in the answer's order (freshness, …, symbol): sent whatever the budget. */
  head: Record<string, unknown>;
  /** The definition's source (null: not readable). */
  body: string | null;
  imports: readonly string[];
  outline: readonly OutlineNode[];
  related: readonly SymbolDef[];
}

/** The sized part of the answer, in the answer's order after `head`. */
export interface PackedContext {
  definition: string | null;
  outline: OutlineNode[];
  imports: string[];
  related: SymbolDef[];
  estimated_tokens: number;
  truncated: boolean;
}

/**
 * Sizes a get_code_context answer to `maxTokens` tokens of its JSON text,
 * `{...head, definition, outline, imports, related, estimated_tokens,
 * truncated}` as `JSON.stringify` writes it (the gateway's `metadata` is
 * added later and not counted). Parts go in in order of worth: the
 * definition (whole lines, cut where the budget ends), then whole imports,
 * outline nodes and related definitions, each list stopping at its first
 * item that does not fit. Each piece is counted once as it is added (a text
 * is cheap to count in pieces: a BPE pre-tokenizer splits at punctuation and
 * spaces, so pieces' counts add up to within a token or so of the whole);
 * the whole answer is then counted exactly and, in the rare case the pieces
 * undercounted, the last piece added is taken back until it fits. The
 * fields in `head` are sent even when they alone exceed the budget
 * (`truncated`, `estimated_tokens` says how many there are).
 */
export function packContext(parts: ContextParts, maxTokens: number, count: TokenCounter): PackedContext {
  const packed: PackedContext = { definition: null, outline: [], imports: [], related: [], estimated_tokens: 0, truncated: false };
  const answer = () => ({ ...parts.head, ...packed });
  let left = maxTokens - measure(answer, packed, count);
  // The body goes in line by line, as its JSON string writes it (quotes and newlines escaped).
  if (parts.body !== null) {
    const lines = parts.body.split('\n');
    const kept: string[] = [];
    for (const [i, line] of lines.entries()) {
      const cost = count(JSON.stringify(i < lines.length - 1 ? `${line}\n` : line).slice(1, -1));
      if (cost > left) break;
      left -= cost;
      kept.push(line);
    }
    if (kept.length === lines.length) packed.definition = parts.body;
    else {
      packed.truncated = true;
      // Cut lines end with their newline, so a reader sees where the cut is; a first line longer than the budget is cut
      // where the budget ends.
      packed.definition = kept.length > 0 ? `${kept.join('\n')}\n` : prefixWithin(lines[0], left, count);
    }
  }
  // Whole items only from here: an import, an outline node, a related definition fits, or its list stops there (a
  // list stays a prefix of itself, in order of worth) and the next list is tried: a file's outline is often one class
  // node larger than the budget, and the related definitions after it are small.
  const fill = <T>(items: readonly T[], into: T[]): void => {
    for (const item of items) {
      const cost = count(`${JSON.stringify(item)},`);
      if (cost > left) {
        packed.truncated = true;
        return;
      }
      left -= cost;
      into.push(item);
    }
  };
  // A definition cut short used the budget up to a line.
  if (!packed.truncated) {
    fill(parts.imports, packed.imports);
    fill(parts.outline, packed.outline);
    fill(parts.related, packed.related);
  }
  // Exact, once: what the pieces' counts missed comes off the end, in the reverse order of worth.
  while (measure(answer, packed, count) > maxTokens && shrink(packed)) packed.truncated = true;
  return packed;
}

/** Counts the whole answer, with `estimated_tokens` set to that count (its own digits included). */
function measure(answer: () => object, packed: PackedContext, count: TokenCounter): number {
  for (let i = 0; i < 4; i++) {
    const total = count(JSON.stringify(answer()));
    if (total === packed.estimated_tokens) break;
    packed.estimated_tokens = total;
  }
  return packed.estimated_tokens;
}

/** Takes back the last piece added; false when nothing is left to take. */
function shrink(packed: PackedContext): boolean {
  for (const list of [packed.related, packed.outline, packed.imports] as unknown[][]) {
    if (list.length > 0) {
      list.pop();
      return true;
    }
  }
  if (!packed.definition) return false;
  const body = packed.definition.replace(/\n$/, '');
  const cut = body.lastIndexOf('\n');
  packed.definition = cut < 0 ? '' : body.slice(0, cut + 1);
  return true;
}

/** The longest prefix of `line` whose JSON-escaped text counts at most `budget` tokens. */
function prefixWithin(line: string, budget: number, count: TokenCounter): string {
  let [low, high] = [0, line.length];
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (count(JSON.stringify(line.slice(0, mid)).slice(1, -1)) <= budget) low = mid;
    else high = mid - 1;
  }
  return line.slice(0, low);
}
