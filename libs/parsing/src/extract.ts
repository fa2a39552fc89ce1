import { SymbolKind as SymbolKindSchema } from '@sextant/contracts';
import type { Node, QueryCapture } from 'web-tree-sitter';
import type { Grammar } from './grammars.js';

/** The kinds of the catalog (`SymbolKind` of the symbol tools): a query's `@definition.<kind>` must be one of them, else `other`. */
export const SYMBOL_KINDS = SymbolKindSchema.options;
export type SymbolKind = (typeof SYMBOL_KINDS)[number];

/** One definition found in a file; lines are 1-based and inclusive, columns 0-based. */
export interface ExtractedSymbol {
  name: string;
  kind: SymbolKind;
  line: number;
  endLine: number;
  column: number;
  /** The enclosing definition (a method's class, a Go method's receiver type), if any. */
  container: string | null;
  /** The declaration's head on one line (up to its body), cut to `SIGNATURE_MAX` characters. */
  signature: string | null;
  /** Index of the enclosing definition in `symbols` (for outlines), or -1. */
  parent: number;
}

export interface ExtractedImport {
  module: string;
  line: number;
}

export interface Extraction {
  symbols: ExtractedSymbol[];
  imports: ExtractedImport[];
  /** The parser recovered from syntax errors: what it could read is still here. */
  syntaxErrors: boolean;
}

const SIGNATURE_MAX = 200;

/** Thrown when a file's parse or query runs past its time budget. */
export class BudgetExceeded extends Error {}

/**
 * Definitions and imports of one file, from its grammar's query. Symbols
 * come in source order with their nesting (container, parent); a syntax
 * error does not stop extraction (tree-sitter recovers).
 */
export function extract(grammar: Grammar, source: string, timeoutMs: number): Extraction {
  const deadline = performance.now() + timeoutMs;
  // Returning true cancels (the typings say void).
  const overBudget = (() => performance.now() > deadline) as () => void;
  const tree = grammar.parser.parse(source, null, { progressCallback: overBudget });
  if (!tree) throw new BudgetExceeded(`parsing took longer than ${timeoutMs} ms`);
  try {
    const matches = grammar.query.matches(tree.rootNode, { progressCallback: overBudget });
    if (performance.now() > deadline) throw new BudgetExceeded(`the query took longer than ${timeoutMs} ms`);
    const byNameNode = new Map<number, { node: Node; name: Node; kind: SymbolKind }>();
    const imports: ExtractedImport[] = [];
    for (const match of matches) {
      const definition = match.captures.find((c) => c.name.startsWith('definition.'));
      const name = capture(match.captures, 'name');
      if (definition && name) {
        const kind = kindOf(definition.name.slice('definition.'.length), definition.node);
        const known = byNameNode.get(name.startIndex);
        // One name, several patterns (`const f = () => …` is a variable and a function): the more specific kind wins.
        if (!known || (known.kind === 'variable' && kind !== 'variable'))
          byNameNode.set(name.startIndex, { node: definition.node, name, kind });
        continue;
      }
      const module = capture(match.captures, 'module');
      if (module && match.captures.some((c) => c.name === 'import')) {
        imports.push({ module: module.text, line: module.startPosition.row + 1 });
      }
    }
    const symbols = nest(
      grammar.name,
      [...byNameNode.values()].sort((a, b) => a.node.startIndex - b.node.startIndex || b.node.endIndex - a.node.endIndex),
    );
    return { symbols, imports, syntaxErrors: tree.rootNode.hasError };
  } finally {
    tree.delete();
  }
}

function capture(captures: QueryCapture[], name: string): Node | undefined {
  return captures.find((c) => c.name === name)?.node;
}

function kindOf(raw: string, node: Node): SymbolKind {
  if (raw === 'variable' && node.parent?.type === 'lexical_declaration' && node.parent.firstChild?.type === 'const') return 'constant';
  return (SYMBOL_KINDS as readonly string[]).includes(raw) ? (raw as SymbolKind) : 'other';
}

/** Containers by range (a stack of open definitions), then per-language refinements. */
function nest(language: string, found: Array<{ node: Node; name: Node; kind: SymbolKind }>): ExtractedSymbol[] {
  const symbols: ExtractedSymbol[] = [];
  const ends: number[] = [];
  const open: number[] = [];
  for (const { node, name, kind } of found) {
    while (open.length > 0 && ends[open.at(-1)!]! <= node.startIndex) open.pop();
    const parent = open.at(-1) ?? -1;
    const container = parent >= 0 ? symbols[parent] : undefined;
    // A Python function in a class is a method.
    const refined = kind === 'function' && (container?.kind === 'class' || container?.kind === 'interface') ? 'method' : kind;
    symbols.push({
      name: name.text,
      kind: refined,
      line: node.startPosition.row + 1,
      endLine: node.endPosition.row + 1,
      column: name.startPosition.column,
      container: language === 'go' && kind === 'method' && !container ? receiverType(node) : (container?.name ?? null),
      signature: signatureOf(node),
      parent,
    });
    ends.push(node.endIndex);
    open.push(symbols.length - 1);
  }
  return symbols;
}

/** A Go method's receiver type (`func (s *Server) Start()` → `Server`). */
function receiverType(node: Node): string | null {
  const receiver = node.childForFieldName('receiver');
  if (!receiver) return null;
  const types = receiver.descendantsOfType('type_identifier');
  return types[0]?.text ?? null;
}

/** The declaration up to its body, on one line. */
function signatureOf(node: Node): string | null {
  const body = node.childForFieldName('body') ?? node.childForFieldName('value');
  const end = body && body.startIndex > node.startIndex ? body.startIndex - node.startIndex : undefined;
  const head = node.text
    .slice(0, end ?? 1_000)
    .split('\n')
    .slice(0, end === undefined ? 1 : undefined)
    .join(' ');
  const text = head
    .replace(/\s+/g, ' ')
    .replace(/[\s{:=]+$/, '')
    .trim();
  if (!text) return null;
  return text.length > SIGNATURE_MAX ? `${text.slice(0, SIGNATURE_MAX - 1)}…` : text;
}
