import type { Node } from 'web-tree-sitter';
import { extractWith } from './extract.js';
import { BudgetExceeded, type ExtractedSymbol } from './extraction.js';
import type { Grammar } from './grammars.js';

/**
 * A piece of a file for search: a definition (function, method, class …),
 * part of a long one, the code between definitions, a Markdown section, a
 * top-level key of a config file, or a window of lines. Lines are 1-based
 * and inclusive.
 */
export interface Chunk {
  startLine: number;
  endLine: number;
  /** The definition it is (`Cart.add`), or is part of, or is inside; a Markdown heading; null at the top level. */
  symbol: string | null;
  text: string;
}

/** How big a chunk grows: small siblings are merged up to `minChars`, long definitions split under `maxLines` / `maxChars`. */
export interface ChunkLimits {
  maxLines: number;
  maxChars: number;
  minChars: number;
  /** Lines repeated at the start of the next piece of a split definition. */
  overlapLines: number;
}

export const CHUNK_LIMITS: ChunkLimits = { maxLines: 60, maxChars: 2_400, minChars: 500, overlapLines: 2 };

/** Of a very long line (minified code), this much is kept in a chunk. */
const MAX_LINE_CHARS = 500;

/** A line range and what it belongs to, before its text is cut from the file. */
interface Piece {
  from: number;
  to: number;
  symbol: string | null;
  /** A whole definition (not the code between definitions, not part of a split one). */
  whole: boolean;
  /** Part of a definition cut in pieces: never merged with a neighbour. */
  split?: boolean;
}

/**
 * Chunks of a parsed file: its definitions as the symbol indexer sees them
 * (the same extraction, so both agree on boundaries), a definition longer
 * than the limits split on its statements (with a few lines of overlap),
 * the code around definitions kept as its own pieces, small neighbours
 * merged.
 */
export function chunkParsed(grammar: Grammar, source: string, timeoutMs: number, limits: ChunkLimits = CHUNK_LIMITS): Chunk[] {
  const lines = source.split('\n');
  const deadline = performance.now() + timeoutMs;
  return extractWith(grammar, source, timeoutMs, ({ symbols }, root) => {
    const pieces: Piece[] = [];
    const children = childrenOf(symbols);
    const size = (from: number, to: number) => charsOf(lines, from, to);
    const qualified = (i: number) => {
      const s = symbols[i];
      return s.container ? `${s.container}.${s.name}` : s.name;
    };
    const glue = (from: number, to: number, symbol: string | null) => {
      for (const [a, b] of windows(from, to, lines, limits)) pieces.push({ from: a, to: b, symbol, whole: false });
    };
    const visit = (from: number, to: number, kids: readonly number[], symbol: string | null) => {
      let at = from;
      for (const k of kids) {
        const s = symbols[k];
        if (s.line > at) glue(at, Math.min(to, s.line - 1), symbol);
        definition(k);
        at = Math.max(at, s.endLine + 1);
      }
      if (at <= to) glue(at, to, symbol);
    };
    const definition = (i: number) => {
      if (performance.now() > deadline) throw new BudgetExceeded(`chunking took longer than ${timeoutMs} ms`);
      const s = symbols[i];
      const name = qualified(i);
      if (s.endLine - s.line + 1 <= limits.maxLines && size(s.line, s.endLine) <= limits.maxChars) {
        pieces.push({ from: s.line, to: s.endLine, symbol: name, whole: true });
      } else if ((children.get(i) ?? []).length > 0) {
        visit(s.line, s.endLine, children.get(i)!, name);
      } else {
        for (const [from, to] of splitOnStatements(root, s, lines, limits))
          pieces.push({ from, to, symbol: name, whole: false, split: true });
      }
    };
    visit(1, lines.length, children.get(-1) ?? [], null);
    return toChunks(merge(pieces, lines, limits), lines, limits);
  });
}

/**
 * Chunks of a file no grammar parses: Markdown by headings, YAML and TOML
 * by top-level keys and tables, anything else by windows of lines.
 */
export function chunkText(path: string, source: string, limits: ChunkLimits = CHUNK_LIMITS): Chunk[] {
  const lines = source.split('\n');
  const starts: Array<{ line: number; symbol: string | null }> = [];
  const ext = /\.([^./]+)$/.exec(path.toLowerCase())?.[1] ?? '';
  let fence = false;
  lines.forEach((line, i) => {
    if (ext === 'md' || ext === 'markdown' || ext === 'mdx') {
      if (/^\s*(```|~~~)/.test(line)) fence = !fence;
      const heading = !fence && /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
      if (heading) starts.push({ line: i + 1, symbol: heading[1].slice(0, 200) });
    } else if (ext === 'yaml' || ext === 'yml') {
      const key = /^([A-Za-z0-9_.$"'-][^:#]*):/.exec(line);
      if (key) starts.push({ line: i + 1, symbol: key[1].replace(/["']/g, '').trim().slice(0, 200) });
    } else if (ext === 'toml') {
      const table = /^\s*\[\[?([^\]]+)\]\]?\s*$/.exec(line);
      if (table) starts.push({ line: i + 1, symbol: table[1].trim().slice(0, 200) });
    }
  });
  const pieces: Piece[] = [];
  if (starts.length === 0 || starts[0].line > 1) starts.unshift({ line: 1, symbol: null });
  starts.forEach((start, k) => {
    const to = (starts[k + 1]?.line ?? lines.length + 1) - 1;
    for (const [from, end] of windows(start.line, to, lines, limits)) pieces.push({ from, to: end, symbol: start.symbol, whole: false });
  });
  return toChunks(merge(pieces, lines, limits), lines, limits);
}

/** Each definition's direct children (by ordinal; -1: the top level), in source order. */
function childrenOf(symbols: readonly ExtractedSymbol[]): Map<number, number[]> {
  const children = new Map<number, number[]>();
  symbols.forEach((s, i) => {
    const list = children.get(s.parent);
    if (list) list.push(i);
    else children.set(s.parent, [i]);
  });
  return children;
}

/**
 * A long definition's line ranges, cut between its body's statements: its
 * head and statements gathered until the next would pass the limits, each
 * later range starting `overlapLines` early. A body with no statements to
 * cut on (or a statement longer than the limits) is cut by lines.
 */
function splitOnStatements(root: Node, symbol: ExtractedSymbol, lines: readonly string[], limits: ChunkLimits): Array<[number, number]> {
  const node = definitionNode(root, symbol);
  const body = node?.childForFieldName('body') ?? node;
  const statements = (body?.namedChildren ?? [])
    .filter((c): c is Node => c !== null)
    .map((c) => [c.startPosition.row + 1, c.endPosition.row + 1] as [number, number])
    .filter(([from, to]) => from >= symbol.line && to <= symbol.endLine);
  if (statements.length < 2) return windows(symbol.line, symbol.endLine, lines, limits);
  const ranges: Array<[number, number]> = [];
  let from = symbol.line;
  let to = statements[0][1];
  for (const [, end] of statements.slice(1)) {
    const fits = end - from + 1 <= limits.maxLines && charsOf(lines, from, end) <= limits.maxChars;
    if (fits) {
      to = end;
      continue;
    }
    ranges.push(...windows(from, to, lines, limits));
    from = Math.max(from + 1, to + 1 - limits.overlapLines);
    to = end;
  }
  ranges.push(...windows(from, symbol.endLine, lines, limits));
  return ranges;
}

/** The syntax node of a definition: the node its name is in, climbed to the one spanning its lines. */
function definitionNode(root: Node, symbol: ExtractedSymbol): Node | null {
  let node: Node | null = root.descendantForPosition({ row: symbol.line - 1, column: symbol.column });
  while (node && !(node.startPosition.row + 1 <= symbol.line && node.endPosition.row + 1 >= symbol.endLine)) node = node.parent;
  return node;
}

/** Windows of at most maxLines / maxChars over [from, to], each later one starting `overlapLines` early. */
function windows(from: number, to: number, lines: readonly string[], limits: ChunkLimits): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let start = from;
  while (start <= to) {
    let end = start;
    let chars = lineChars(lines, start);
    while (end < to && end - start + 1 < limits.maxLines && chars + lineChars(lines, end + 1) <= limits.maxChars) {
      end++;
      chars += lineChars(lines, end);
    }
    out.push([start, end]);
    if (end >= to) break;
    start = Math.max(start + 1, end + 1 - limits.overlapLines);
  }
  return out;
}

/**
 * Neighbouring pieces merged while both are small (under minChars) and the
 * result stays within the limits; a piece holding only blank lines goes.
 */
function merge(pieces: readonly Piece[], lines: readonly string[], limits: ChunkLimits): Piece[] {
  const out: Piece[] = [];
  for (const piece of pieces) {
    if (isBlank(lines, piece.from, piece.to)) continue;
    const last = out.at(-1);
    const small = (p: Piece) => charsOf(lines, p.from, p.to) < limits.minChars;
    if (
      last &&
      !last.split &&
      !piece.split &&
      small(last) &&
      small(piece) &&
      piece.from > last.to &&
      piece.to - last.from + 1 <= limits.maxLines &&
      charsOf(lines, last.from, piece.to) <= limits.maxChars
    ) {
      out[out.length - 1] = {
        from: last.from,
        to: piece.to,
        symbol: last.symbol === piece.symbol || !last.whole ? (last.symbol ?? piece.symbol) : last.symbol,
        whole: false,
      };
      continue;
    }
    out.push(piece);
  }
  return out;
}

function toChunks(pieces: readonly Piece[], lines: readonly string[], limits: ChunkLimits): Chunk[] {
  return pieces.map((p) => {
    // Leading and trailing blank lines are not part of a chunk.
    let from = p.from;
    let to = p.to;
    while (from < to && !lines[from - 1].trim()) from++;
    while (to > from && !lines[to - 1].trim()) to--;
    let text = lines
      .slice(from - 1, to)
      .map((l) => (l.length > MAX_LINE_CHARS ? `${l.slice(0, MAX_LINE_CHARS)}…` : l))
      .join('\n');
    if (text.length > limits.maxChars * 2) text = `${text.slice(0, limits.maxChars * 2)}…`;
    return { startLine: from, endLine: to, symbol: p.symbol, text };
  });
}

function lineChars(lines: readonly string[], line: number): number {
  return Math.min(lines[line - 1]?.length ?? 0, MAX_LINE_CHARS) + 1;
}

function charsOf(lines: readonly string[], from: number, to: number): number {
  let n = 0;
  for (let i = from; i <= to; i++) n += lineChars(lines, i);
  return n;
}

function isBlank(lines: readonly string[], from: number, to: number): boolean {
  for (let i = from; i <= to; i++) if (lines[i - 1]?.trim()) return false;
  return true;
}
