import type { Node } from 'web-tree-sitter';
import { ANONYMOUS } from './extraction.js';

/* Types as written (`pkg.Foo<T>`, `Optional[Foo]`, `(*URL, error)`, `[]T`) read as the bare names the index knows. */

/**
 * A declared type → the bare name of the one type it denotes (`Foo`, `pkg.Foo<T>`, `Foo | undefined`,
 * `Optional[Foo]`, `Readonly<Foo>`, `Pick<Foo, 'a'>`, `"Foo"`, `*Foo`): undefined for anything else (unions, arrays, functions, literals).
 */
export function typeName(text: string): string | undefined {
  let t = text.trim().replace(/^["']|["']$/g, '');
  // Wrappers that keep the type's members: Python's Optional[T], TypeScript's Readonly<T>, Partial<T>, Required<T>, NonNullable<T>.
  const wrapped =
    /^(?:typing\.)?(?:Optional\[([^]*)\]|(?:Readonly|Partial|Required|NonNullable)<([^]*)>|(?:Pick|Omit)<([^,<>]+(?:<[^<>]*>)?),[^]*>)$/.exec(
      t,
    );
  if (wrapped) t = (wrapped[1] ?? wrapped[2] ?? wrapped[3]).trim();
  const parts = topLevelParts(t, '|')
    .map((p) => p.trim())
    .filter((p) => !/^(null|undefined|None)$/.test(p));
  if (parts.length !== 1) return undefined;
  t = parts[0].replace(/^[*&]+/, '');
  if (isTypeLiteral(t)) return ANONYMOUS;
  if (t.endsWith('[]')) return undefined;
  if (!/^[\p{L}_$][\p{L}\p{N}_$]*(\.[\p{L}_$][\p{L}\p{N}_$]*)*(<[^]*>|\[[^]*\])?$/u.test(t)) return undefined;
  return bareType(t);
}

/**
 * `text` split at `separator` outside brackets (`{ a: T | U } | null` → `{ a: T | U }`, `null`; Go's
 * `(m map[K]V, err error)` at its commas). An arrow (`=>`, Go's `<-chan`) is not a bracket.
 */
function topLevelParts(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if ('([{'.includes(c) || (c === '<' && text[i + 1] !== '-')) depth++;
    else if (')]}'.includes(c) || (c === '>' && text[i - 1] !== '=')) depth--;
    else if (c === separator && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** `struct {…}` or `{…}` as a whole (not `{…} & Base`): a type without a name. */
function isTypeLiteral(text: string): boolean {
  const open = /^(?:struct\s*)?\{/.exec(text)?.[0].length;
  if (open === undefined) return false;
  let depth = 1;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return i === text.length - 1;
  }
  return false;
}

/**
 * The element type of a collection type as written: Go's `[]T`, `[N]T`, `map[K]T`; TypeScript's `T[]`, `Array<T>`,
 * `Set<T>`, `Map<K, T>`'s `T` is left out (its elements are pairs); Python's `list[T]`. Undefined for anything else.
 */
export function elementType(text: string): string | undefined {
  const t = text.trim().replace(/^readonly\s+/, '');
  const found =
    /^(?:\[[^\]]*\]|map\[[^[\]]*\])\s*(\S[^]*)$/.exec(t) ??
    /^([^]+)\[\]$/.exec(t) ??
    /^(?:Array|ReadonlyArray|Set|ReadonlySet|Iterable|IterableIterator)<([^]+)>$/.exec(t) ??
    /^(?:typing\.)?(?:list|List|set|Set|Sequence|Iterable|tuple\[[^,\]]+,\s*\.\.\.)\[([^]+)\]$/.exec(t);
  return found?.[1]?.trim();
}

/** The type parameters declared by a definition and the definitions around it (a method's class): `T`, `K`. */
export function typeParametersAround(node: Node): Set<string> {
  const names = new Set<string>();
  for (let n: Node | null = node, depth = 0; n && depth < 4; n = n.parent, depth++) {
    for (const parameter of n.childForFieldName('type_parameters')?.namedChildren ?? []) {
      for (const name of parameter?.childrenForFieldName('name') ?? []) if (name) names.add(name.text);
    }
  }
  return names;
}

/** Definitions whose `@returns` is the type of a value read, not the result of a call. */
export const FIELDS = new Set(['public_field_definition', 'property_signature', 'field_declaration', 'assignment']);

/**
 * A declared result → its type's bare name: the first of Go's results (`(*URL, error)`, `(u *URL, err error)`);
 * `this`; for a function (`called`), `T` of a `Promise<T>` (what an awaited call gives); `ANONYMOUS` for a type without a name.
 */
function resultType(text: string, called: boolean): string | undefined {
  let t = text.trim();
  if (t === 'this') return t;
  if (called) t = /^(?:Promise|PromiseLike)<([^]*)>$/.exec(t)?.[1]?.trim() ?? t;
  if (t.startsWith('(') && t.endsWith(')')) {
    // The first result, up to a comma outside brackets; a named one (`u *URL`) by its type.
    t = topLevelParts(t.slice(1, -1), ',')[0].trim();
    const named = /^[\p{L}_][\p{L}\p{N}_]*\s+([*[\p{L}_][^]*)$/u.exec(t);
    if (named && !/^(struct|map|chan|func|interface)\b/.test(t)) t = named[1]!;
  }
  return typeName(t);
}

/** `resultType` of a type written at `at`, but none for a type parameter there (`f<T>(): T`: whatever the call makes it). */
export function declaredResult(text: string, called: boolean, at: Node): string | undefined {
  const type = resultType(text, called);
  return type !== undefined && typeParametersAround(at).has(type) ? undefined : type;
}

export function constituents(node: Node, depth = 0): string[] {
  if (depth > 16) return [];
  if (node.type === 'union_type' || node.type === 'intersection_type' || node.type === 'parenthesized_type') {
    return node.namedChildren.flatMap((child) => (child ? constituents(child, depth + 1) : []));
  }
  if (node.type === 'type_identifier' || node.type === 'generic_type' || node.type === 'nested_type_identifier') {
    const name = bareType(node.text);
    return name ? [name] : [];
  }
  return [];
}

/** A type as written → its bare name (`pkg.Base<T>` → `Base`, `*Base` → `Base`, `a::b::Trait` → `Trait`). */
export function bareType(text: string): string | undefined {
  return /([\p{L}_$][\p{L}\p{N}_$]*)\s*(<[^]*)?$/u.exec(text.replace(/\[[^]*$|\([^]*$/, ''))?.[1];
}
