import type { ExtractedReference, ReferenceKind } from './extraction.js';

/** One name's occurrences in one file, packed in a string (see `packReferences`). */
export interface PackedReferences {
  name: string;
  occurrences: string;
}

/** An occurrence as `unpackOccurrences` gives it back. */
export type Occurrence = Omit<ExtractedReference, 'name'>;

const KIND_CODES: Record<ReferenceKind, string> = { call: 'c', type: 't', write: 'w', read: 'r', import: 'i' };
const KINDS_BY_CODE = Object.fromEntries(Object.entries(KIND_CODES).map(([kind, code]) => [code, kind])) as Record<string, ReferenceKind>;

/**
 * A file's references, one entry per name: `line,column,kind,enclosing,qualifier[,receiver[,arity]]`
 * per occurrence, joined by `;` (a qualifier holds no `,` or `;`; `-` marks
 * none, an empty one a member access on something that is not a name; the
 * receiver's type only when the file says it, empty when only an arity follows;
 * a call's argument count when known).
 * Packed in the parse worker: a few strings cross to the main thread and
 * into the database instead of an object per occurrence.
 */
export function packReferences(references: readonly ExtractedReference[]): PackedReferences[] {
  const byName = new Map<string, string[]>();
  for (const r of references) {
    const tail = r.arity !== undefined ? `,${r.receiver ?? ''},${r.arity}` : r.receiver ? `,${r.receiver}` : '';
    const packed = `${r.line},${r.column},${KIND_CODES[r.kind]},${r.enclosing},${r.qualifier ?? '-'}${tail}`;
    const list = byName.get(r.name);
    if (list) list.push(packed);
    else byName.set(r.name, [packed]);
  }
  return [...byName].map(([name, list]) => ({ name, occurrences: list.join(';') }));
}

export function unpackOccurrences(packed: string): Occurrence[] {
  return packed.split(';').map((one) => {
    const [line, column, kind, enclosing, qualifier, receiver, arity] = one.split(',');
    return {
      line: Number(line),
      column: Number(column),
      kind: KINDS_BY_CODE[kind] ?? 'read',
      enclosing: Number(enclosing),
      qualifier: qualifier === '-' ? null : (qualifier ?? null),
      ...(receiver ? { receiver } : {}),
      ...(arity ? { arity: Number(arity) } : {}),
    };
  });
}
