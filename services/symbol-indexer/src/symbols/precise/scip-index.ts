import { readFileSync } from 'node:fs';
import { posix } from 'node:path';
import protobuf from 'protobufjs';
import { ServiceError } from '@sextant/work';

/** What a SCIP occurrence's `symbol_roles` bits mean (scip.proto `SymbolRole`). */
export const ROLE = { definition: 0x1, import: 0x2, write: 0x4, read: 0x8 } as const;

/** An occurrence of a global symbol in a document; lines and columns 0-based, as SCIP gives them. */
interface PreciseOccurrence {
  symbol: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  roles: number;
}

interface PreciseDocument {
  /** Relative to the repository root, POSIX, checked to stay inside it. */
  path: string;
  language: string;
  occurrences: PreciseOccurrence[];
}

/** A global symbol the index describes (its `SymbolInformation`). */
interface PreciseSymbol {
  symbol: string;
  kind: number;
  displayName: string;
  /** The symbols whose references are this one's too (`is_reference` relationships: the members it overrides or implements). */
  references: string[];
  /** The types it extends or implements, at every level (`is_implementation` relationships; members: those it implements). */
  implementations: string[];
}

export interface ScipIndex {
  tool: string;
  documents: PreciseDocument[];
  symbols: PreciseSymbol[];
  occurrenceCount: number;
}

/** Bounds on what one index may hold; past one, the index is refused whole. */
export interface ScipLimits {
  maxBytes: number;
  maxDocuments: number;
  maxOccurrences: number;
}

/** Relationships kept per symbol at most (a member overrides a handful). */
const MAX_RELATIONSHIPS = 64;

/** A symbol string longer than this is not a compiler's (the longest on the bench corpus are a few hundred characters). */
const MAX_SYMBOL_LENGTH = 2_048;

interface RawOccurrence {
  range?: number[];
  symbol?: string;
  symbol_roles?: number;
}
interface RawSymbol {
  symbol?: string;
  kind?: number;
  display_name?: string;
  relationships?: Array<{ symbol?: string; is_reference?: boolean; is_implementation?: boolean }>;
}
interface RawDocument {
  relative_path?: string;
  language?: string;
  occurrences?: RawOccurrence[];
  symbols?: RawSymbol[];
}
interface RawToolInfo {
  tool_info?: { name?: string; version?: string };
}

let types: { document: protobuf.Type; metadata: protobuf.Type } | undefined;

/** The vendored schema (`proto/scip.proto` beside `src/` and `dist/`), parsed once. */
function scipTypes(): { document: protobuf.Type; metadata: protobuf.Type } {
  if (!types) {
    const source = readFileSync(new URL('../../../proto/scip.proto', import.meta.url), 'utf8');
    const { root } = protobuf.parse(source, { keepCase: true });
    types = { document: root.lookupType('scip.Document'), metadata: root.lookupType('scip.Metadata') };
  }
  return types;
}

function refused(reason: string, details: Record<string, unknown> = {}): ServiceError {
  return ServiceError.of('invalid_input', `The SCIP index was refused: ${reason}. Nothing was stored.`, details);
}

/**
 * A document path as stored: relative, POSIX, inside the repository. An index that names a file outside it (`../x`,
 * `/etc/passwd`) is hostile or built for another root; it is refused whole rather than trimmed.
 */
function checkedPath(raw: string | undefined, index: number): string {
  const path = raw ?? '';
  if (path === '' || path.includes('\0') || path.includes('\\') || path.length > 4_096) {
    throw refused(`document ${index} has no usable relative_path`, { document: index });
  }
  const normal = posix.normalize(path);
  if (posix.isAbsolute(path) || /^[A-Za-z]:/.test(path) || normal === '..' || normal.startsWith('../') || normal === '.') {
    throw refused(`document ${index} is outside the repository ("${path.slice(0, 200)}")`, { document: index, path: path.slice(0, 200) });
  }
  return normal;
}

/** A local symbol is its document's: named with the document's path. */
function scoped(symbol: string, path: string): string {
  return symbol.startsWith('local ') ? `${symbol} ${path}` : symbol;
}

/** `[line, column, endColumn]` or `[line, column, endLine, endColumn]`, non-negative and in order. */
function checkedRange(range: readonly number[] | undefined, path: string): Omit<PreciseOccurrence, 'symbol' | 'roles'> {
  const r = range ?? [];
  const [line, column, a, b] = r;
  const valid = (r.length === 3 || r.length === 4) && r.every((n) => Number.isInteger(n) && n >= 0);
  const end = r.length === 3 ? { endLine: line, endColumn: a } : { endLine: a, endColumn: b };
  if (!valid || end.endLine < line || (end.endLine === line && end.endColumn < column)) {
    throw refused(`an occurrence in "${path}" has a malformed range [${r.slice(0, 4).join(', ')}]`, { path });
  }
  return { line: line, column: column, ...end };
}

/**
 * Decodes a SCIP index (scip.proto `Index`) one document at a time, checking as it goes: its size, that it is
 * well-formed protobuf, that every document lies inside the repository, that ranges are ranges, and the totals of
 * documents and occurrences. Any violation refuses the whole index with `invalid_input` (the caller stores nothing).
 * A local symbol (`local N`, one document's: a nested function, a class declared in a callback) is named with its
 * document's path (`local N <path>`) so that it stays unique in the repository.
 */
export function decodeScipIndex(bytes: Uint8Array, limits: ScipLimits): ScipIndex {
  if (bytes.length > limits.maxBytes) {
    throw refused(`it is ${bytes.length} bytes, over the limit of ${limits.maxBytes}`, { bytes: bytes.length, max_bytes: limits.maxBytes });
  }
  if (bytes.length === 0) throw refused('it is empty');
  const { document: Document, metadata: Metadata } = scipTypes();
  const documents: PreciseDocument[] = [];
  const symbols = new Map<string, PreciseSymbol>();
  const paths = new Set<string>();
  let tool = 'unknown';
  let occurrenceCount = 0;
  const reader = protobuf.Reader.create(bytes);
  try {
    while (reader.pos < reader.len) {
      const tag = reader.uint32();
      const field = tag >>> 3;
      const wire = tag & 7;
      if ((field === 1 || field === 2) && wire === 2) {
        const length = reader.uint32();
        if (reader.pos + length > reader.len) throw new RangeError('a field runs past the end');
        const body = bytes.subarray(reader.pos, reader.pos + length);
        reader.skip(length);
        if (field === 1) {
          const info = (Metadata.decode(body) as unknown as RawToolInfo).tool_info;
          tool = `${info?.name ?? 'unknown'} ${info?.version ?? ''}`.trim().slice(0, 200);
          continue;
        }
        if (documents.length >= limits.maxDocuments) {
          throw refused(`it holds more than ${limits.maxDocuments} documents`, { max_documents: limits.maxDocuments });
        }
        const raw = Document.decode(body) as unknown as RawDocument;
        const path = checkedPath(raw.relative_path, documents.length);
        if (paths.has(path)) throw refused(`document "${path}" appears twice`, { path });
        paths.add(path);
        const occurrences: PreciseOccurrence[] = [];
        for (const o of raw.occurrences ?? []) {
          if (++occurrenceCount > limits.maxOccurrences) {
            throw refused(`it holds more than ${limits.maxOccurrences} occurrences`, { max_occurrences: limits.maxOccurrences });
          }
          const symbol = o.symbol ?? '';
          if (symbol.length > MAX_SYMBOL_LENGTH) throw refused(`a symbol in "${path}" is ${symbol.length} characters long`, { path });
          const range = checkedRange(o.range, path);
          if (symbol === '') continue;
          occurrences.push({ symbol: scoped(symbol, path), ...range, roles: o.symbol_roles ?? 0 });
        }
        for (const s of raw.symbols ?? []) {
          const symbol = s.symbol ?? '';
          if (symbol === '' || symbol.length > MAX_SYMBOL_LENGTH) continue;
          const related = (s.relationships ?? [])
            .filter((r) => (r.is_reference || r.is_implementation) && r.symbol && r.symbol.length <= MAX_SYMBOL_LENGTH)
            .slice(0, MAX_RELATIONSHIPS);
          const targets = (flag: 'is_reference' | 'is_implementation') =>
            related.filter((r) => r[flag] === true).map((r) => scoped(r.symbol!, path));
          symbols.set(scoped(symbol, path), {
            symbol: scoped(symbol, path),
            kind: s.kind ?? 0,
            displayName: (s.display_name ?? '').slice(0, 512),
            references: targets('is_reference'),
            implementations: targets('is_implementation'),
          });
        }
        documents.push({ path, language: (raw.language ?? '').slice(0, 64), occurrences });
      } else {
        reader.skipType(wire);
      }
    }
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    throw refused(`it is not a well-formed SCIP protobuf (${(error as Error).message})`);
  }
  // Symbols that occur without a SymbolInformation (scip-typescript leaves some out) still get a row.
  for (const d of documents) {
    for (const o of d.occurrences)
      if (!symbols.has(o.symbol))
        symbols.set(o.symbol, { symbol: o.symbol, kind: 0, displayName: '', references: [], implementations: [] });
  }
  return { tool, documents, symbols: [...symbols.values()], occurrenceCount };
}

/**
 * Indexes of one checkout by several indexers (one per language) as one: their documents (a path indexed twice is
 * kept from the first) and symbols (one per symbol string: the schemes of different indexers do not meet).
 */
export function mergeScipIndexes(indexes: readonly ScipIndex[]): ScipIndex {
  if (indexes.length === 1) return indexes[0];
  const paths = new Set<string>();
  const documents = indexes.flatMap((i) => i.documents).filter((d) => !paths.has(d.path) && paths.add(d.path));
  const names = new Set<string>();
  const symbols = indexes.flatMap((i) => i.symbols).filter((s) => !names.has(s.symbol) && names.add(s.symbol));
  return {
    tool: indexes.map((i) => i.tool).join(' + '),
    documents,
    symbols,
    occurrenceCount: documents.reduce((sum, d) => sum + d.occurrences.length, 0),
  };
}
