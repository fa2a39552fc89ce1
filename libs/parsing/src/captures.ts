import type { Node, QueryCapture, QueryMatch } from 'web-tree-sitter';
import type { ExtractOptions } from './extract-options.js';
import {
  KEY,
  QUALIFIER,
  SYMBOL_KINDS,
  type ExtractedImport,
  type FoundDefinition,
  type FoundReference,
  type ImportBinding,
  type ReferenceKind,
  type SymbolKind,
  type TypedName,
} from './extraction.js';
import { chainOf } from './receivers.js';
import { bareType, declaredResult, FIELDS, typeName } from './type-text.js';

/* A file's query matches read by their role capture into what extraction then nests, binds and types. */

/** The capture that says what a match is; the others (`name`, `module`, `qualifier`, `member`, `import.*`) qualify it. */
const ROLE =
  /^(definition\.|reference\.|local\.|binding\.(local|field)$|doc$|import$|reexport$|skip$|supertype$|implements$|impl$|returns$|alias$|export\.default$|export\.local$)/;
const REFERENCE_PRECEDENCE: Record<ReferenceKind, number> = { import: 4, call: 3, type: 2, write: 1, read: 0 };

/** What a file's query matches say, before nesting and typing: the raw material of its extraction. */
export interface Collected {
  /** Definitions by the start of their name. */
  byNameNode: Map<number, FoundDefinition>;
  /** Imports by the start of their module. */
  imports: Map<number, ExtractedImport>;
  /** Starts of imported names (references of what they import) and of the local names imports declare. */
  importNames: Set<number>;
  importLocals: Set<number>;
  /** Local names a bare `export { … }` passes on, with the names they are exported as. */
  localExports: Map<string, string[]>;
  /** Starts of names a `@skip` capture says are no references. */
  skipped: Set<number>;
  references: Map<number, FoundReference>;
  /** Keys of object literals and patterns (`{name: …}`), by start. */
  memberKeys: Map<number, FoundReference>;
  supertypes: Array<{ node: Node; implements: boolean }>;
  /** The values of type aliases (`@alias`). */
  aliased: Node[];
  defaultExport: string | undefined;
  /** Rust's `impl Trait for Type`, as bare names. */
  impls: Array<{ trait: string | undefined; type: string | undefined }>;
  /** `@local.scope` ranges and `@local.definition` names. */
  scopes: Array<[number, number]>;
  locals: Array<{ name: string; at: number }>;
  /** Names whose type the file says, by role and position. */
  typed: Map<string, TypedName>;
  /** Per definition node: its declared result's bare name. */
  returnsAt: Map<number, string>;
}

/**
 * Reads a file's query matches by their role capture (`ROLE`): definitions, references (one per name, the strongest
 * kind), object keys, imports (a statement's names joined to its module), supertypes, aliases, locals and scopes,
 * typed names, declared results.
 */
export function collect(matches: readonly QueryMatch[], options: ExtractOptions): Collected {
  const byNameNode = new Map<number, FoundDefinition>();
  const imports = new Map<number, ExtractedImport>();
  const importNames = new Set<number>();
  const importLocals = new Set<number>();
  /** Local names a bare `export { … }` passes on, with the names they are exported as. */
  const localExports = new Map<string, string[]>();
  const skipped = new Set<number>();
  const references = new Map<number, FoundReference>();
  const memberKeys = new Map<number, FoundReference>();
  const supertypes: Array<{ node: Node; implements: boolean }> = [];
  const aliased: Node[] = [];
  let defaultExport: string | undefined;
  const impls: Array<{ trait: string | undefined; type: string | undefined }> = [];
  const scopes: Array<[number, number]> = [];
  const locals: Array<{ name: string; at: number }> = [];
  const typed = new Map<string, TypedName>();
  /** Per definition node: its declared result's bare name. */
  const returnsAt = new Map<number, string>();
  /** Per import statement (its node's start): the module it names; and the matches of its names, not yet joined to it. */
  const moduleOf = new Map<number, Node>();
  const unjoined: Array<{ statement: number; role: string; captures: QueryCapture[] }> = [];
  const addImport = (module: Node, role: string, captures: QueryCapture[]) => {
    let record = imports.get(module.startIndex);
    if (!record) {
      record = { module: module.text, line: module.startPosition.row + 1, reexport: role === 'reexport', bindings: [] };
      imports.set(module.startIndex, record);
    }
    const binding = bindingOf(captures);
    if (binding && !record.bindings.some((b) => b.name === binding.name && b.alias === binding.alias)) {
      record.bindings.push(binding);
      for (const c of captures) {
        // The imported name is a reference to what it names; a local alias, default or namespace name declares a local.
        if (c.name === 'import.name') importNames.add(c.node.startIndex);
        else if (options.importAliasIsUse && (c.name === 'import.alias' || c.name === 'import.default')) importNames.add(c.node.startIndex);
        else if (c.name.startsWith('import.')) importLocals.add(c.node.startIndex);
      }
    }
  };
  for (const match of matches) {
    const first = match.captures.find((c) => ROLE.test(c.name));
    if (!first) continue;
    const role = first.name;
    if (role.startsWith('reference.')) {
      const kind = role.slice('reference.'.length) as ReferenceKind;
      if (capture(match.captures, 'member')) {
        // A property key (`{name: …}`, `{name}`, `const {name} = …`): a member of an object whose type is unknown here.
        // With @receiver, the object's type is written around it (`T{Name: v}`, `const x: T = {name: …}`).
        // With @receiver.value, the object is an expression: a destructured value (`const {a} = this.opts`).
        // With @receiver.declaration, the declaration's type, else its value (`typeAndValue`).
        const object = typeAndValue(match.captures, 'receiver');
        const type = capture(match.captures, 'receiver') ?? object.type;
        // With @receiver.result, the object is what a function returns: of the type its result declares.
        const result = capture(match.captures, 'receiver.result');
        const declared = result ? declaredResult(result.text, true, result) : type ? typeName(type.text) : undefined;
        const receiver = declared === 'this' ? undefined : declared;
        const value = object.value;
        const chain = value ? chainOf(value) : undefined;
        const known = memberKeys.get(first.node.startIndex);
        if (!known)
          memberKeys.set(first.node.startIndex, {
            node: first.node,
            kind,
            qualifier: KEY,
            ...(receiver ? { receiver } : {}),
            ...(chain ? { chain } : {}),
          });
        else if (receiver) known.receiver = receiver;
        else if (chain) known.chain = chain;
        continue;
      }
      const qualifierNode = capture(match.captures, 'qualifier');
      const text = qualifierNode?.text;
      // `super().name` (Python) is read as `super.name`: a member of the class's supertype.
      const qualifier = text === undefined ? null : QUALIFIER.test(text) ? text : text === 'super()' ? 'super' : '';
      // An object that is no name may still say its type: `f().name`, `new Foo().name`, `(x as Foo).name`, `x.load().name`.
      const chain = qualifier === '' && qualifierNode ? chainOf(qualifierNode) : undefined;
      const args = kind === 'call' ? capture(match.captures, 'call.arguments') : undefined;
      const arity = args ? argumentCount(args) : undefined;
      const known = references.get(first.node.startIndex);
      if (!known)
        references.set(first.node.startIndex, {
          node: first.node,
          kind,
          qualifier,
          ...(chain ? { chain } : {}),
          ...(arity !== undefined ? { arity } : {}),
        });
      else {
        if (REFERENCE_PRECEDENCE[kind] > REFERENCE_PRECEDENCE[known.kind]) known.kind = kind;
        known.qualifier ??= qualifier;
        known.arity ??= arity;
      }
      continue;
    }
    if (role === 'impl') {
      // A Rust `impl Trait for Type` block: the type (defined in this file) implements the trait.
      const trait = capture(match.captures, 'impl.trait');
      const type = capture(match.captures, 'impl.type');
      if (trait && type) impls.push({ trait: bareType(trait.text), type: bareType(type.text) });
      continue;
    }
    if (role === 'supertype' || role === 'implements') {
      supertypes.push({ node: first.node, implements: role === 'implements' });
      continue;
    }
    if (role === 'export.default') {
      defaultExport = first.node.text;
      continue;
    }
    if (role === 'alias') {
      // A type alias's value (`@alias`): the named types of its unions and intersections.
      aliased.push(first.node);
      continue;
    }
    if (role === 'skip') {
      skipped.add(first.node.startIndex);
      continue;
    }
    if (role === 'local.scope') {
      scopes.push([first.node.startIndex, first.node.endIndex]);
      continue;
    }
    if (role === 'doc') {
      // `{@link Name}` in a documentation comment names a symbol, as the language service reads it.
      for (const link of docLinks(first.node)) if (!references.has(link.node.startIndex)) references.set(link.node.startIndex, link);
      continue;
    }
    if (role === 'local.definition') {
      locals.push({ name: first.node.text, at: first.node.startIndex });
      continue;
    }
    if (role === 'binding.local' || role === 'binding.field') {
      const literal = capture(match.captures, 'binding.literal');
      if (literal) {
        // `this` in a method of an object literal is the literal (the method's own scope declares it).
        const key = `${role}\0this\0${first.node.startIndex}`;
        typed.set(key, {
          field: false,
          name: 'this',
          at: first.node.startIndex,
          literal: { at: literal.startIndex, line: literal.startPosition.row + 1 },
        });
        continue;
      }
      const name = capture(match.captures, 'binding.name');
      const { type, value } = typeAndValue(match.captures, 'binding');
      const from = capture(match.captures, 'binding.from');
      const element = capture(match.captures, 'binding.element');
      if (!name || !(type || from || value || element)) continue;
      // One name, several patterns (`const x: Foo = f()`): what each says, a declared type first.
      // (A TypeScript parameter property is a local and a field: two bindings.)
      const key = `${role}\0${name.startIndex}`;
      const binding = typed.get(key) ?? { field: role === 'binding.field', name: name.text, at: name.startIndex };
      if (type && binding.raw === undefined) Object.assign(binding, { type: typeName(type.text), raw: type.text });
      binding.from ??= from?.text;
      binding.key ??= capture(match.captures, 'binding.key')?.text;
      binding.value ??= value ? chainOf(value) : undefined;
      binding.element ??= element?.text;
      typed.set(key, binding);
      continue;
    }
    if (role === 'returns') {
      // A function's declared result or a field's declared type (`@returns.type`), a variable's (`@returns.value`), for the definition on the same node.
      const type = capture(match.captures, 'returns.type');
      const value = type ? undefined : capture(match.captures, 'returns.value');
      const returns = type
        ? declaredResult(type.text, !FIELDS.has(first.node.type), first.node)
        : value
          ? declaredResult(value.text, false, first.node)
          : undefined;
      if (returns) returnsAt.set(first.node.startIndex, returns);
      continue;
    }
    if (role === 'export.local') {
      // `export { a, b as c }` without `from`: names the file passes on; those it imports are re-exported below.
      const name = capture(match.captures, 'export.name');
      if (name) {
        const as = capture(match.captures, 'export.alias')?.text ?? name.text;
        const list = localExports.get(name.text) ?? [];
        if (!list.includes(as)) localExports.set(name.text, [...list, as]);
      }
      continue;
    }
    if (role === 'import' || role === 'reexport') {
      const module = capture(match.captures, 'module');
      // A match without @module names what one statement binds (`import {a, b as c} from`, one match per name): its
      // module is the one another match of the same statement captures, joined once every match is read.
      if (!module) unjoined.push({ statement: first.node.startIndex, role, captures: match.captures });
      else {
        if (!moduleOf.has(first.node.startIndex)) moduleOf.set(first.node.startIndex, module);
        addImport(module, role, match.captures);
      }
      continue;
    }
    const definition = first;
    const name = capture(match.captures, 'name');
    if (name) {
      const kind = kindOf(definition.name.slice('definition.'.length), definition.node);
      const known = byNameNode.get(name.startIndex);
      // One name, several patterns (`const f = () => …` is a variable and a function): the more specific kind wins.
      if (!known || (known.kind === 'variable' && kind !== 'variable'))
        byNameNode.set(name.startIndex, { node: definition.node, name, kind });
    }
  }
  for (const { statement, role, captures } of unjoined) {
    // A statement no match gave a module (`export { a }` without `from`) imports nothing.
    const module = moduleOf.get(statement);
    if (module) addImport(module, role, captures);
  }
  return {
    byNameNode,
    imports,
    importNames,
    importLocals,
    localExports,
    skipped,
    references,
    memberKeys,
    supertypes,
    aliased,
    defaultExport,
    impls,
    scopes,
    locals,
    typed,
    returnsAt,
  };
}

function capture(captures: QueryCapture[], name: string): Node | undefined {
  return captures.find((c) => c.name === name)?.node;
}

/**
 * A match's `<prefix>.type` and `<prefix>.value`; or, given its `<prefix>.declaration`, that declaration's declared
 * type (its `type` field, inside a type annotation) or else its `value` field. A pattern that captures each name of a
 * destructuring (`const {a, b, …} = x`, `function f({a, b, …}: T)`) cannot also capture what follows the names: every
 * name's match would wait for it, a cost that grows faster than the square of their number (1,000 names: 3.5–6.6 s).
 */
function typeAndValue(captures: QueryCapture[], prefix: string): { type?: Node; value?: Node } {
  const declaration = capture(captures, `${prefix}.declaration`);
  if (!declaration) return { type: capture(captures, `${prefix}.type`), value: capture(captures, `${prefix}.value`) };
  const annotation = declaration.childForFieldName('type');
  const type = (annotation?.type === 'type_annotation' ? annotation.namedChild(0) : annotation) ?? undefined;
  return type ? { type } : { value: declaration.childForFieldName('value') ?? undefined };
}

/** What one import match binds: a named import (with its alias), a default, a namespace, or a wildcard. */
function bindingOf(captures: QueryCapture[]): ImportBinding | undefined {
  const name = capture(captures, 'import.name');
  if (name) return { name: name.text, alias: capture(captures, 'import.alias')?.text ?? name.text };
  const namespace = capture(captures, 'import.namespace');
  if (namespace) return { name: '*', alias: namespace.text };
  const fallback = capture(captures, 'import.default');
  if (fallback) return { name: 'default', alias: fallback.text };
  if (capture(captures, 'import.all')) return { name: '*', alias: '' };
  return undefined;
}

/**
 * What `import { a } from './m'; export { a as b }` passes on, as `export { a as b } from './m'` would: a re-export
 * record per import whose local names the file exports (the import stays a use).
 */
export function reexportsOfImports(
  imports: readonly ExtractedImport[],
  exported: ReadonlyMap<string, readonly string[]>,
): ExtractedImport[] {
  const out: ExtractedImport[] = [];
  for (const record of imports) {
    if (record.reexport) continue;
    const bindings = record.bindings.flatMap((b) =>
      b.alias === '' ? [] : (exported.get(b.alias) ?? []).map((as) => ({ name: b.name, alias: as })),
    );
    if (bindings.length > 0) out.push({ module: record.module, line: record.line, reexport: true, bindings });
  }
  return out;
}

const DOC_LINK = /\{@link(?:code|plain)?\s+([\p{L}_$][\p{L}\p{N}_$]*)(?:\.([\p{L}_$][\p{L}\p{N}_$]*))?/gu;

/** The names a comment links to (`{@link Name}`, `{@link Name.member}`: a use of `member` qualified by `Name`). */
function docLinks(comment: Node): FoundReference[] {
  const text = comment.text;
  if (!text.includes('{@link')) return [];
  const out: FoundReference[] = [];
  const start = comment.startPosition;
  // Lines counted as the links are met, not from the comment's start for each.
  let row = start.row;
  let lineStart = -1;
  for (const match of text.matchAll(DOC_LINK)) {
    const member = match[2];
    const offset = match.index + match[0].length - (member ?? match[1]).length;
    for (let nl = text.indexOf('\n', lineStart + 1); nl >= 0 && nl < offset; nl = text.indexOf('\n', nl + 1)) {
      row++;
      lineStart = nl;
    }
    const column = lineStart < 0 ? start.column + offset : offset - lineStart - 1;
    out.push({
      node: { startIndex: comment.startIndex + offset, text: member ?? match[1], startPosition: { row, column } },
      kind: 'read',
      qualifier: member ? match[1] : null,
    });
  }
  return out;
}

/** How many arguments an argument list holds; undefined when one is spread (`f(...xs)`). */
function argumentCount(args: Node): number | undefined {
  let count = 0;
  for (const arg of args.namedChildren) {
    if (!arg || arg.type === 'comment') continue;
    if (arg.type === 'spread_element') return undefined;
    count++;
  }
  return count;
}

function kindOf(raw: string, node: Node): SymbolKind {
  if (raw === 'variable' && node.parent?.type === 'lexical_declaration' && node.parent.firstChild?.type === 'const') return 'constant';
  return (SYMBOL_KINDS as readonly string[]).includes(raw) ? (raw as SymbolKind) : 'other';
}
