import { SymbolKind as SymbolKindSchema } from '@sextant/contracts';
import type { Node, QueryCapture, Tree } from 'web-tree-sitter';
import type { ExtractOptions } from './extract-options.js';
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
  /** The types a class, interface or struct extends or embeds, by name (`Base`, not `pkg.Base<T>`). */
  supertypes?: string[];
  /** The interfaces a class implements, by name. */
  implements?: string[];
  /** The named types a type alias stands for (`type X = A | B<T> | (C & D)`: A, B, C, D): its members are theirs. */
  aliases?: string[];
  /** The file exports it as its default (`export default class X`, `export default x`): `import y from` binds it. */
  defaultExport?: boolean;
  /**
   * A function's or method's declared result, by bare name (the first of Go's results; `this` for a method that
   * returns its object): what a call of it gives (`x := f()`, `f().g`), resolved when the call's member is bound.
   */
  returns?: string;
}

/** A name an import binds in the importing file. */
export interface ImportBinding {
  /** The exported name taken (`default` for a default import), or `*` for the whole module (a namespace, or every name with an empty alias). */
  name: string;
  /** The local name it is bound to (empty for a wildcard). */
  alias: string;
}

export interface ExtractedImport {
  module: string;
  line: number;
  /** An `export … from` (the names are passed on to the file's importers), not a use. */
  reexport: boolean;
  bindings: ImportBinding[];
}

export type ReferenceKind = 'call' | 'type' | 'write' | 'read' | 'import';

/** A use of a name that this file does not declare locally (a parameter or a local variable hides it). */
export interface ExtractedReference {
  name: string;
  line: number;
  column: number;
  kind: ReferenceKind;
  /** Ordinal of the innermost definition around it, or -1 at the top level. */
  enclosing: number;
  /**
   * A member access (`x.name`): the object's text when it is a name (`x`, `this`, `a.b`), `{}` for a key of an object
   * literal or pattern (`{name: …}`, `const {name} = …`), else ''; null for a bare name.
   */
  qualifier: string | null;
  /** For a call, how many arguments it passes (none with a spread `...xs`): which overloaded signature it takes. */
  arity?: number;
  /**
   * The object's type where the file says it, as a receiver expression (`parseReceiver`): a bare type name (`x: Foo`,
   * `x = new Foo()`, `this.x` of a field typed `Foo`): the member is then `Foo`'s (or a supertype's); `ANONYMOUS` for
   * a type without a name (`struct {…}`, `{ a: T }`); `f()` for the result of a call of `f` (`x := f()`, `f().g`);
   * and either followed by members (`Foo.opts`, `Foo.load()`, `f().items`: `x.opts.port` with `x: Foo`,
   * `this.opts.port` in class `Foo`), whose declared types the binder looks up. Absent when unknown.
   */
  receiver?: string;
}

export interface Extraction {
  symbols: ExtractedSymbol[];
  imports: ExtractedImport[];
  references: ExtractedReference[];
  /** The parser recovered from syntax errors: what it could read is still here. */
  syntaxErrors: boolean;
}

const SIGNATURE_MAX = 200;
/** The qualifier of a property key (`{name: …}`): a member of an object whose type the file does not say. */
export const KEY = '{}';
/** The receiver of a member of a type without a name (an anonymous struct, an object type literal): no class's. */
const ANONYMOUS = '{…}';
/** A member taken from an object (`.name`), or called on it (`.name()`). */
export interface ReceiverStep {
  name: string;
  call: boolean;
}

/**
 * A receiver expression taken apart: where it starts — a type (`Foo`) or the result of calling a name (`f()`, `call`)
 * — and the members taken or called from there, in order (`Foo.opts.load()` → Foo, opts, load()).
 */
export interface ParsedReceiver {
  base: string;
  call: boolean;
  steps: ReceiverStep[];
}

/** Members followed at most from a receiver's start (`a.b.c.d.e`): past that, the type is not sought. */
export const MAX_RECEIVER_STEPS = 4;

export function parseReceiver(receiver: string): ParsedReceiver {
  const [first, ...rest] = receiver.split('.');
  const step = (part: string): ReceiverStep =>
    part.endsWith('()') ? { name: part.slice(0, -2), call: true } : { name: part, call: false };
  const base = step(first!);
  return { base: base.name, call: base.call, steps: rest.map(step) };
}

function receiverText(base: string, steps: readonly ReceiverStep[]): string | undefined {
  // `base` may have steps of its own (a chain typed from another: `x.a.b` with `x` of type `Foo.c`).
  const already = base.split('.').length - 1;
  if (already + steps.length > MAX_RECEIVER_STEPS || (base === ANONYMOUS && steps.length > 0)) return undefined;
  return base + steps.map((s) => `.${s.name}${s.call ? '()' : ''}`).join('');
}
const QUALIFIER = /^[\p{L}\p{N}_$.#]{1,64}$/u;
/** The capture that says what a match is; the others (`name`, `module`, `qualifier`, `member`, `import.*`) qualify it. */
const ROLE =
  /^(definition\.|reference\.|local\.|binding\.(local|field)$|doc$|import$|reexport$|skip$|supertype$|implements$|impl$|returns$|alias$|export\.default$|export\.local$)/;
const REFERENCE_PRECEDENCE: Record<ReferenceKind, number> = { import: 4, call: 3, type: 2, write: 1, read: 0 };

/** Thrown when a file's parse or query runs past its time budget. */
export class BudgetExceeded extends Error {}

interface FoundDefinition {
  node: Node;
  name: Node;
  kind: SymbolKind;
}

/** Where a reference is: a node of the tree, or a name inside a comment (`{@link Name}`). */
type Site = Pick<Node, 'startIndex' | 'text' | 'startPosition'>;

interface FoundReference {
  node: Site;
  kind: ReferenceKind;
  qualifier: string | null;
  receiver?: string;
  arity?: number;
  /** An object that is no plain name (`f().g`, `x.load().items`): its type, once the file's names are typed. */
  chain?: Chain;
}

/**
 * An expression's type as the file can tell it: from a name or a chain of names (`object`: `x`, `this.store`, typed
 * when the file's bindings are known) or from a type or call written in it (`base`: `Foo` for `new Foo()`, `f()`),
 * then members taken or called (`steps`).
 */
interface Chain {
  object?: string;
  base?: string;
  steps: ReceiverStep[];
}

/**
 * A name whose type the file says (`@binding.local`: a parameter or variable, in its innermost scope;
 * `@binding.field`: a field of the class around it): the type's bare name, or `from` — another local
 * name whose type it takes (`this.store = store`).
 */
interface TypedName {
  field: boolean;
  name: string;
  at: number;
  /** The declared type's bare name (`typeName`), and the type as written (`raw`: its element type is read from it). */
  type?: string;
  raw?: string;
  from?: string;
  /** The expression whose result it holds (`x := f()`, `const x = this.load()`, `x = a.b`). */
  value?: Chain;
  /** Another local name whose element it holds (`for _, x := range xs`, `for (const x of xs)`, `x := xs[i]`). */
  element?: string;
  /** The member it is destructured from (`const {a: b} = x`: `a`; `{gen}: Cxt`: `gen`): its type is that member's of the rest. */
  key?: string;
  /**
   * `this` in an object literal's method (`@binding.literal`, where the literal starts): the type its members are written
   * in, the definition around the literal (as they have it for container).
   */
  literal?: { at: number; line: number };
}

/** Fields whose identifier names a member or an argument, not a local (Python's `x.attr`, `f(name=…)`; `x.prop` elsewhere). */
const MEMBER_FIELDS = ['attribute', 'property', 'field', 'name'];

/**
 * A name that is an object's member, a keyword argument's name or a composite literal's key (Go's `T{name: v}`: a
 * field of `T`), where the grammar spells it as an identifier.
 */
function isMemberName(node: Node): boolean {
  const parent = node.parent;
  if (!parent) return false;
  if (parent.type === 'literal_element')
    return parent.parent?.type === 'keyed_element' && parent.parent.namedChild(0)?.startIndex === parent.startIndex;
  if (parent.type !== 'attribute' && parent.type !== 'keyword_argument' && !parent.type.startsWith('member')) return false;
  return MEMBER_FIELDS.some((field) => parent.childForFieldName(field)?.startIndex === node.startIndex);
}

/** A file's syntax tree, parsed within `timeoutMs` (else `BudgetExceeded`), and the budget's check for the query that follows. */
function parseWithin(grammar: Grammar, source: string, timeoutMs: number): { tree: Tree; deadline: number; overBudget: () => void } {
  const deadline = performance.now() + timeoutMs;
  // Returning true cancels (the typings say void).
  const overBudget = (() => performance.now() > deadline) as () => void;
  const tree = grammar.parser.parse(source, null, { progressCallback: overBudget });
  if (!tree) {
    // A cancelled parse is resumed by the next call unless reset: the next file would be read as the rest of this one.
    grammar.parser.reset();
    throw new BudgetExceeded(`parsing took longer than ${timeoutMs} ms`);
  }
  return { tree, deadline, overBudget };
}

/**
 * Definitions, imports and references of one file, from its grammar's query
 * (capture names: see any `languages/<name>/tags.scm`). Symbols come in
 * source order with their nesting (container, parent); a reference bound by
 * a parameter or local variable is dropped (it cannot name anything another
 * file sees); a syntax error does not stop extraction (tree-sitter recovers).
 */
export function extract(grammar: Grammar, source: string, timeoutMs: number): Extraction {
  return extractWith(grammar, source, timeoutMs, (extraction) => extraction);
}

/**
 * `extract`, then `use` of what it found and the file's syntax tree, before
 * the tree is freed (the chunker splits long definitions on their statements).
 */
export function extractWith<T>(grammar: Grammar, source: string, timeoutMs: number, use: (extraction: Extraction, root: Node) => T): T {
  const { options } = grammar;
  const { tree, deadline, overBudget } = parseWithin(grammar, source, timeoutMs);
  try {
    const matches = grammar.query.matches(tree.rootNode, { progressCallback: overBudget });
    if (performance.now() > deadline) throw new BudgetExceeded(`the query took longer than ${timeoutMs} ms`);
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
          else if (options.importAliasIsUse && (c.name === 'import.alias' || c.name === 'import.default'))
            importNames.add(c.node.startIndex);
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
    const found = [...byNameNode.values()].sort((a, b) => a.node.startIndex - b.node.startIndex || b.node.endIndex - a.node.endIndex);
    const symbols = nest(grammar.name, found);
    for (const [i, { node }] of found.entries()) {
      const returns = returnsAt.get(node.startIndex);
      // A result without a name (`(): { unit: string }`, `opts: {…}`) is the type its members are written in: theirs, by its definition's name.
      if (returns) symbols[i]!.returns = returns === ANONYMOUS ? symbols[i]!.name : returns;
    }
    const enclosing = enclosingLookup(found, symbols);
    const classAt = enclosing((s) => CLASS_LIKE.has(s.kind));
    const definitionAt = enclosing(() => true);
    attachSupertypes(symbols, classAt, supertypes);
    if (defaultExport !== undefined) {
      const exported = symbols.find((sym) => sym.parent === -1 && sym.name === defaultExport);
      if (exported) exported.defaultExport = true;
    }
    for (const value of aliased) {
      const owner = definitionAt(value.startIndex, value.endIndex);
      if (owner < 0 || symbols[owner]!.kind !== 'type') continue;
      // The alias's own type parameters (`type Maybe<T> = T | null`) are no types of the index.
      const parameters = typeParametersAround(value);
      const names = [...new Set(constituents(value))].filter((n) => !parameters.has(n));
      if (names.length > 0) symbols[owner]!.aliases = names;
    }
    if (performance.now() > deadline) throw new BudgetExceeded(`extraction took longer than ${timeoutMs} ms`);
    for (const { trait, type } of impls) {
      const owner = symbols.find((sym) => sym.name === type && sym.parent === -1 && (CLASS_LIKE.has(sym.kind) || sym.kind === 'enum'));
      if (!owner || !trait) continue;
      const list = (owner.implements ??= []);
      if (!list.includes(trait)) list.push(trait);
    }
    for (const record of imports.values()) {
      if (record.bindings.length === 0 && options.moduleAlias && !record.reexport) {
        record.bindings.push({
          name: '*',
          alias: options.moduleAlias === 'module' ? record.module : record.module.slice(record.module.lastIndexOf('/') + 1),
        });
      }
    }
    const passedOn = localExports.size > 0 ? reexportsOfImports([...imports.values()], localExports) : [];
    const scopeTree = new ScopeTree(scopes);
    const shadowed = localScopes(scopeTree, locals);
    const declared = new Set([...byNameNode.keys(), ...locals.map((l) => l.at), ...importLocals, ...skipped]);
    const uses: FoundReference[] = [];
    for (const [at, reference] of references) {
      if (declared.has(at)) continue;
      if (importNames.has(at)) reference.kind = 'import';
      else if (reference.qualifier === null && isShadowed(shadowed, reference.node.text, at)) continue;
      uses.push(reference);
    }
    for (const [at, key] of memberKeys) if (!byNameNode.has(at)) uses.push(key);
    typeReceivers(uses, [...typed.values()], locals, scopeTree, classAt, definitionAt, symbols, globalsOf(options));
    // A type without a name is the type of the definition it is written in (a Go test table's `[]struct{…}`, a
    // parameter's `{ a: T }`): its fields' container.
    for (const use of uses) {
      if (use.receiver !== ANONYMOUS) continue;
      const owner = definitionAt(use.node.startIndex, use.node.startIndex + 1);
      if (owner >= 0) use.receiver = symbols[owner]!.name;
    }
    if (performance.now() > deadline) throw new BudgetExceeded(`extraction took longer than ${timeoutMs} ms`);
    const extraction = {
      symbols,
      imports: [...imports.values(), ...passedOn],
      references: enclose(uses, found),
      syntaxErrors: tree.rootNode.hasError,
    };
    return use(extraction, tree.rootNode);
  } finally {
    tree.delete();
  }
}

/** Node types of a bare name where it is used: a variable's or parameter's, or a shorthand property's value (`{ url }`). */
const BARE_NAMES: ReadonlySet<string> = new Set(['identifier', 'shorthand_property_identifier']);
/**
 * Also a name a destructuring declares (`const { url } = options`): a local's declaration for its references, but for
 * go to definition the property it takes, as the language service answers there.
 */
const LOCAL_NAMES: ReadonlySet<string> = new Set([...BARE_NAMES, 'shorthand_property_identifier_pattern']);

/** Where a local (a parameter, a local variable) is declared: 1-based line, 0-based column. */
export interface LocalDefinition {
  name: string;
  line: number;
  column: number;
  /** The declaration's line, trimmed and cut to `SIGNATURE_MAX`. */
  text: string;
  /** With `uses`: every other place the name denotes this local (its declaration left out), in source order. */
  uses?: LocalUse[];
}

/** A use of a local: 1-based line, 0-based column; `call` (the name called), `write` (assigned to), else `read`. */
export interface LocalUse {
  line: number;
  column: number;
  kind: 'call' | 'write' | 'read';
}

/**
 * Go to definition of a local: the parameter or local variable that the bare name at `line` (1-based) and `column`
 * (0-based; without it, the first use of `name` as a word on the line) denotes, by the query's `@local.scope` and
 * `@local.definition` — declared in the innermost scope around the use that declares the name, the last declaration
 * at or before the use there (else the first after it, as a hoisted one). Undefined when the name there is no local's
 * (a definition of the index, an import, a member), or the position holds another name than `name` (when given).
 */
export function localDefinitionAt(
  grammar: Grammar,
  source: string,
  line: number,
  column: number | undefined,
  timeoutMs: number,
  name?: string,
  uses = false,
): LocalDefinition | undefined {
  const lines = source.split('\n');
  const lineText = (row: number) => lines[row] ?? '';
  if (column === undefined) {
    if (name === undefined) return undefined;
    const word = new RegExp(`(?<![\\p{L}\\p{N}_$])${name.replace(/[$]/g, '\\$&')}(?![\\p{L}\\p{N}_$])`, 'u').exec(lineText(line - 1));
    if (!word) return undefined;
    column = word.index;
  }
  const { tree, deadline, overBudget } = parseWithin(grammar, source, timeoutMs);
  try {
    const node = tree.rootNode.descendantForPosition({ row: line - 1, column });
    if (!node || !(uses ? LOCAL_NAMES : BARE_NAMES).has(node.type) || (name !== undefined && node.text !== name) || isMemberName(node))
      return undefined;
    const used = node.text;
    const at = node.startIndex;
    const scopes: Array<[number, number]> = [];
    const declarations: Array<{ at: number; line: number; column: number }> = [];
    for (const match of grammar.query.matches(tree.rootNode, { progressCallback: overBudget })) {
      for (const c of match.captures) {
        if (c.name === 'local.scope') scopes.push([c.node.startIndex, c.node.endIndex]);
        else if (c.name === 'local.definition' && c.node.text === used)
          declarations.push({ at: c.node.startIndex, line: c.node.startPosition.row + 1, column: c.node.startPosition.column });
      }
    }
    if (performance.now() > deadline) throw new BudgetExceeded(`the query took longer than ${timeoutMs} ms`);
    const scopeTree = new ScopeTree(scopes);
    const declared = declarations.map((declaration) => ({ declaration, scope: scopeTree.innermost(declaration.at) }));
    /** The declaration a use of the name at byte `at` denotes, with its scope. */
    const denoted = (at: number) => {
      let best: { scope: [number, number]; declaration: (typeof declarations)[number] } | undefined;
      for (const { declaration, scope } of declared) {
        if (!scope || !(scope[0] <= at && at < scope[1])) continue;
        const before = declaration.at <= at;
        const better =
          !best ||
          scope[0] > best.scope[0] ||
          (scope[0] === best.scope[0] &&
            (before
              ? best.declaration.at > at || declaration.at > best.declaration.at
              : best.declaration.at > at && declaration.at < best.declaration.at));
        if (better) best = { scope, declaration };
      }
      return best;
    };
    const best = denoted(at);
    if (!best) return undefined;
    const text = lineText(best.declaration.line - 1).trim();
    // A use denotes a declaration of the name in the same scope: the one variable, however often it is assigned
    // (Python's `key = key.encode()`, Go's `x, err := …`, a second `var x`).
    const isUse = (n: Node) => {
      const scope = n.startIndex === best.declaration.at ? undefined : denoted(n.startIndex)?.scope;
      return scope !== undefined && scope[0] === best.scope[0] && scope[1] === best.scope[1];
    };
    return {
      name: used,
      line: best.declaration.line,
      column: best.declaration.column,
      text: text.length > SIGNATURE_MAX ? `${text.slice(0, SIGNATURE_MAX - 1)}…` : text,
      ...(uses ? { uses: usesOf(tree.rootNode, used, best.scope, isUse, deadline, timeoutMs) } : {}),
    };
  } finally {
    tree.delete();
  }
}

/** The bare names `name` within `scope` (byte range) that `denotes` accepts, as uses of a local, in source order. */
function usesOf(
  root: Node,
  name: string,
  scope: [number, number],
  denotes: (node: Node) => boolean,
  deadline: number,
  timeoutMs: number,
): LocalUse[] {
  const out: LocalUse[] = [];
  const from = root.descendantForIndex(scope[0]);
  const to = root.descendantForIndex(Math.max(scope[0], scope[1] - 1));
  for (const node of root.descendantsOfType([...LOCAL_NAMES], from?.startPosition, to?.endPosition)) {
    if (!node || node.text !== name || node.startIndex < scope[0] || node.startIndex >= scope[1] || isMemberName(node)) continue;
    if (performance.now() > deadline) throw new BudgetExceeded(`finding the uses took longer than ${timeoutMs} ms`);
    if (!denotes(node)) continue;
    const parent = node.parent;
    const called = parent !== null && /call/.test(parent.type) && parent.childForFieldName('function')?.startIndex === node.startIndex;
    const written = parent !== null && /assignment/.test(parent.type) && parent.childForFieldName('left')?.startIndex === node.startIndex;
    out.push({ line: node.startPosition.row + 1, column: node.startPosition.column, kind: called ? 'call' : written ? 'write' : 'read' });
  }
  return out;
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
function reexportsOfImports(imports: readonly ExtractedImport[], exported: ReadonlyMap<string, readonly string[]>): ExtractedImport[] {
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

/** Each local name with the ranges of the scopes it is declared in (the innermost scope around its declaration). */
function localScopes(scopes: ScopeTree, locals: ReadonlyArray<{ name: string; at: number }>): Map<string, Spans> {
  const byName = new Map<string, Array<[number, number]>>();
  for (const local of locals) {
    const best = scopes.innermost(local.at);
    if (!best) continue;
    const ranges = byName.get(local.name);
    if (ranges) ranges.push(best);
    else byName.set(local.name, [best]);
  }
  return new Map([...byName].map(([name, ranges]) => [name, new Spans(ranges)]));
}

function isShadowed(shadowed: ReadonlyMap<string, Spans>, name: string, at: number): boolean {
  return shadowed.get(name)?.holds(at) === true;
}

/**
 * A syntax tree's scopes (ranges that nest or are apart), sorted by start, each with the innermost one around it
 * (`parents`): the innermost scope holding a position is found by a binary search and a climb as deep as the scopes
 * nest, where a walk back through every earlier scope was quadratic in a file of many functions.
 */
class ScopeTree {
  private readonly ranges: ReadonlyArray<[number, number]>;
  private readonly starts: number[];
  private readonly parents: number[] = [];

  constructor(ranges: Array<[number, number]>) {
    this.ranges = ranges.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
    this.starts = ranges.map((r) => r[0]);
    const open: number[] = [];
    for (const [i, [, end]] of ranges.entries()) {
      while (open.length > 0 && ranges[open.at(-1)!]![1] < end) open.pop();
      this.parents.push(open.at(-1) ?? -1);
      open.push(i);
    }
  }

  innermost(at: number): [number, number] | undefined {
    let i = lastAtOrBefore(this.starts, at);
    while (i >= 0 && this.ranges[i]![1] <= at) i = this.parents[i]!;
    return i >= 0 ? this.ranges[i] : undefined;
  }
}

/** Ranges of any shape, by start, with the furthest end reached so far: whether one holds a position is one binary search. */
class Spans {
  private readonly starts: number[];
  private readonly reach: number[] = [];

  constructor(ranges: Array<[number, number]>) {
    ranges.sort((a, b) => a[0] - b[0]);
    this.starts = ranges.map((r) => r[0]);
    let furthest = -Infinity;
    for (const [, end] of ranges) this.reach.push((furthest = Math.max(furthest, end)));
  }

  holds(at: number): boolean {
    const i = lastAtOrBefore(this.starts, at);
    return i >= 0 && this.reach[i]! > at;
  }
}

/** References in source order, each with the ordinal of the innermost definition around it. */
function enclose(uses: FoundReference[], definitions: readonly FoundDefinition[]): ExtractedReference[] {
  uses.sort((a, b) => a.node.startIndex - b.node.startIndex);
  const out: ExtractedReference[] = [];
  const open: number[] = [];
  let next = 0;
  for (const use of uses) {
    const at = use.node.startIndex;
    while (next < definitions.length && definitions[next]!.node.startIndex <= at) {
      while (open.length > 0 && definitions[open.at(-1)!]!.node.endIndex <= definitions[next]!.node.startIndex) open.pop();
      open.push(next++);
    }
    while (open.length > 0 && definitions[open.at(-1)!]!.node.endIndex <= at) open.pop();
    out.push({
      name: use.node.text,
      line: use.node.startPosition.row + 1,
      column: use.node.startPosition.column,
      kind: use.kind,
      enclosing: open.at(-1) ?? -1,
      qualifier: use.qualifier,
      ...(use.receiver ? { receiver: use.receiver } : {}),
      ...(use.arity !== undefined && use.kind === 'call' ? { arity: use.arity } : {}),
    });
  }
  return out;
}

const CLASS_LIKE = new Set<SymbolKind>(['class', 'interface', 'struct', 'trait']);

/**
 * Gives member accesses the type of their object where the file says it: `x.f` with `x` a parameter or
 * variable typed (or constructed) in a scope around the access, `this.x.f` / `self.x.f` with `x` a field
 * typed in the class around it, `super.f` / `super().f` the class's supertype. The innermost binding wins,
 * as the language's scoping does.
 */
function typeReceivers(
  uses: FoundReference[],
  typed: readonly TypedName[],
  declared: ReadonlyArray<{ name: string; at: number }>,
  scopes: ScopeTree,
  classAt: EnclosingAt,
  definitionAt: EnclosingAt,
  symbols: readonly ExtractedSymbol[],
  globals: ReadonlySet<string>,
): void {
  if (
    typed.length === 0 &&
    !uses.some(
      (u) =>
        u.chain ||
        u.receiver ||
        u.qualifier === 'super' ||
        (u.qualifier?.includes('.') && SELF.has(u.qualifier.split('.')[0]!)) ||
        (u.qualifier && globals.has(u.qualifier)),
    )
  )
    return;
  // A binding's range is its innermost scope, the whole file at the top level.
  // Every declared local is a binding, typed or not: an untyped one (`(user) => user.save()`) hides an outer typed one.
  const locals = new Map<string, Array<{ start: number; end: number; binding: TypedName }>>();
  const fields = new Map<string, TypedName>();
  const classAround = (at: number): number => classAt(at, at + 1);
  const typedAt = new Set<number>();
  const addLocal = (binding: TypedName) => {
    const scope = scopes.innermost(binding.at) ?? [0, Infinity];
    const list = locals.get(binding.name) ?? [];
    list.push({ start: scope[0], end: scope[1], binding });
    locals.set(binding.name, list);
  };
  for (const binding of typed) {
    if (binding.field) {
      const owner = classAround(binding.at);
      const key = `${owner}\0${binding.name}`;
      // A declared type is not replaced by an assignment from an untyped name (`store: Store` then `this.store = s`).
      if (owner >= 0 && (binding.type || !fields.get(key)?.type)) fields.set(key, binding);
      continue;
    }
    typedAt.add(binding.at);
    addLocal(binding);
  }
  for (const local of declared) if (!typedAt.has(local.at)) addLocal({ field: false, name: local.name, at: local.at });
  const bindingOf = (name: string, at: number): TypedName | undefined => {
    // The innermost scope's binding; within one scope, the last one declared at or before the use.
    let best: { start: number; end: number; binding: TypedName } | undefined;
    for (const c of locals.get(name) ?? []) {
      if (!(c.start <= at && at < c.end)) continue;
      if (!best || c.start > best.start) best = c;
      else if (c.start === best.start && c.binding.at <= at && (best.binding.at > at || c.binding.at > best.binding.at)) best = c;
    }
    return best?.binding;
  };
  // What `this` is declared as at a position (`function f(this: Ajv)`, an object literal's method), if anything: a class
  // declared inside a literal's method has its own `this`.
  const selfAt = (at: number): TypedName | undefined => {
    const binding = bindingOf('this', at);
    if (binding?.literal === undefined) return binding;
    const owner = classAround(at);
    return owner >= 0 && symbols[owner]!.line >= binding.literal.line ? undefined : binding;
  };
  // A type without a name is its declaration's: the definition it is written in (its fields' container).
  const named = (type: string | undefined, at: number): string | undefined => {
    if (type !== ANONYMOUS) return type;
    const owner = definitionAt(at, at + 1);
    return owner >= 0 ? symbols[owner]!.name : type;
  };
  // The type as written of a binding (followed through `from`), for its element type.
  const rawOf = (binding: TypedName | undefined, depth: number): { raw: string; at: number } | undefined => {
    if (!binding || depth > 2) return undefined;
    if (binding.raw !== undefined) return { raw: binding.raw, at: binding.at };
    return binding.from ? rawOf(bindingOf(binding.from, binding.at), depth + 1) : undefined;
  };
  const typeOf = (binding: TypedName | undefined, depth = 0): string | undefined => {
    const whole = wholeType(binding, depth);
    // A destructured name is a member of what it is taken from.
    return binding?.key === undefined || whole === undefined ? whole : receiverText(whole, [{ name: binding.key, call: false }]);
  };
  const wholeType = (binding: TypedName | undefined, depth: number): string | undefined => {
    if (!binding || depth > 2) return undefined;
    if (binding.literal !== undefined) {
      // A literal written in no definition (`module.exports = {…}`) has no type to name.
      const owner = definitionAt(binding.literal.at, binding.literal.at + 1);
      return owner >= 0 ? symbols[owner]!.name : undefined;
    }
    if (binding.type) return named(binding.type, binding.at);
    if (binding.value) return chainType(binding.value, binding.at, depth + 1);
    if (binding.element) {
      const source = rawOf(bindingOf(binding.element, binding.at), depth + 1);
      const element = source ? elementType(source.raw) : undefined;
      return element === undefined ? undefined : named(typeName(element), source!.at);
    }
    return binding.from ? typeOf(bindingOf(binding.from, binding.at), depth + 1) : undefined;
  };
  /**
   * A chain of names (`x`, `x.a.b`, `this.store.items`, `super.x`) as a receiver: the first name's type (a local's,
   * the class around for `this`, a field of it — typed in the file, else the class's member, looked up when binding —
   * or the supertype for `super`), followed by the rest as members.
   */
  const namesType = (text: string, at: number, depth: number): string | undefined => {
    const [head, ...rest] = text.split('.');
    let type: string | undefined;
    // A declared `this` (TypeScript's `function f(this: Ajv)`) before the class around.
    const self = head === 'this' ? typeOf(selfAt(at), depth) : undefined;
    if (self !== undefined) type = self;
    else if (SELF.has(head!) || head === 'super') {
      const owner = classAround(at);
      if (owner < 0) return undefined;
      if (head === 'super') type = symbols[owner]!.supertypes?.[0];
      else if (rest.length === 0) type = symbols[owner]!.name;
      else {
        const field = fields.get(`${owner}\0${rest[0]}`);
        const declared = field ? typeOf(field, depth + 1) : undefined;
        if (declared !== undefined) rest.shift();
        type = declared ?? symbols[owner]!.name;
      }
    } else type = typeOf(bindingOf(head!, at), depth);
    return type === undefined
      ? undefined
      : receiverText(
          type,
          rest.map((name) => ({ name, call: false })),
        );
  };
  /** A chain's type: its start (see `Chain`) and its steps. */
  const chainType = (chain: Chain, at: number, depth: number): string | undefined => {
    if (depth > 3) return undefined;
    if (chain.base !== undefined) return receiverText(chain.base, chain.steps);
    const start = namesType(chain.object!, at, depth);
    if (start !== undefined) return receiverText(start, chain.steps);
    // An object of unknown type, called through (`pkg.Parse(s)`, `ns.f()`, `x.make()`): whatever that name declares.
    const [first, ...rest] = chain.steps;
    return first?.call ? receiverText(`${first.name}()`, rest) : undefined;
  };
  for (const use of uses) {
    const at = use.node.startIndex;
    if (use.chain) {
      use.receiver = chainType(use.chain, at, 0);
      continue;
    }
    const qualifier = use.qualifier;
    if (!qualifier || qualifier === KEY) continue;
    if (SELF.has(qualifier)) {
      // `this.name` is the class's member, unless the function declares what `this` is.
      const self = qualifier === 'this' ? typeOf(selfAt(at)) : undefined;
      if (self !== undefined) use.receiver = self;
      continue;
    }
    use.receiver = namesType(qualifier, at, 0);
    // A global object's member (`Object.keys`), unless the file declares that name itself.
    if (use.receiver === undefined && globals.has(qualifier) && !bindingOf(qualifier, at)) use.receiver = qualifier;
  }
}

const NO_GLOBALS: ReadonlySet<string> = new Set();
const globalSets = new WeakMap<ExtractOptions, ReadonlySet<string>>();

/** The language's global objects (`ExtractOptions.globals`) as a set, made once per language. */
function globalsOf(options: ExtractOptions): ReadonlySet<string> {
  if (!options.globals) return NO_GLOBALS;
  let set = globalSets.get(options);
  if (!set) globalSets.set(options, (set = new Set(options.globals)));
  return set;
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
    const offset = match.index + match[0].length - (member ?? match[1]!).length;
    for (let nl = text.indexOf('\n', lineStart + 1); nl >= 0 && nl < offset; nl = text.indexOf('\n', nl + 1)) {
      row++;
      lineStart = nl;
    }
    const column = lineStart < 0 ? start.column + offset : offset - lineStart - 1;
    out.push({
      node: { startIndex: comment.startIndex + offset, text: member ?? match[1]!, startPosition: { row, column } },
      kind: 'read',
      qualifier: member ? match[1]! : null,
    });
  }
  return out;
}

/** Qualifiers that mean "the object the method runs on": the member is the enclosing class's. */
export const SELF: ReadonlySet<string> = new Set(['this', 'self', 'cls', '$this']);

/** Index of the last of sorted `starts` at or before `at`, or -1. */
function lastAtOrBefore(starts: readonly number[], at: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (starts[mid]! <= at) lo = mid + 1;
    else hi = mid - 1;
  }
  return hi;
}

/**
 * A declared type → the bare name of the one type it denotes (`Foo`, `pkg.Foo<T>`, `Foo | undefined`,
 * `Optional[Foo]`, `Readonly<Foo>`, `Pick<Foo, 'a'>`, `"Foo"`, `*Foo`): undefined for anything else (unions, arrays, functions, literals).
 */
function typeName(text: string): string | undefined {
  let t = text.trim().replace(/^["']|["']$/g, '');
  // Wrappers that keep the type's members: Python's Optional[T], TypeScript's Readonly<T>, Partial<T>, Required<T>, NonNullable<T>.
  const wrapped =
    /^(?:typing\.)?(?:Optional\[([^]*)\]|(?:Readonly|Partial|Required|NonNullable)<([^]*)>|(?:Pick|Omit)<([^,<>]+(?:<[^<>]*>)?),[^]*>)$/.exec(
      t,
    );
  if (wrapped) t = (wrapped[1] ?? wrapped[2] ?? wrapped[3])!.trim();
  const parts = topLevelParts(t, '|')
    .map((p) => p.trim())
    .filter((p) => !/^(null|undefined|None)$/.test(p));
  if (parts.length !== 1) return undefined;
  t = parts[0]!.replace(/^[*&]+/, '');
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
    const c = text[i]!;
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
function elementType(text: string): string | undefined {
  const t = text.trim().replace(/^readonly\s+/, '');
  const found =
    /^(?:\[[^\]]*\]|map\[[^\[\]]*\])\s*(\S[^]*)$/.exec(t) ??
    /^([^]+)\[\]$/.exec(t) ??
    /^(?:Array|ReadonlyArray|Set|ReadonlySet|Iterable|IterableIterator)<([^]+)>$/.exec(t) ??
    /^(?:typing\.)?(?:list|List|set|Set|Sequence|Iterable|tuple\[[^,\]]+,\s*\.\.\.)\[([^]+)\]$/.exec(t);
  return found?.[1]?.trim();
}

/** The type parameters declared by a definition and the definitions around it (a method's class): `T`, `K`. */
function typeParametersAround(node: Node): Set<string> {
  const names = new Set<string>();
  for (let n: Node | null = node, depth = 0; n && depth < 4; n = n.parent, depth++) {
    for (const parameter of n.childForFieldName('type_parameters')?.namedChildren ?? []) {
      for (const name of parameter?.childrenForFieldName('name') ?? []) if (name) names.add(name.text);
    }
  }
  return names;
}

/** Definitions whose `@returns` is the type of a value read, not the result of a call. */
const FIELDS = new Set(['public_field_definition', 'property_signature', 'field_declaration', 'assignment']);

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
    t = topLevelParts(t.slice(1, -1), ',')[0]!.trim();
    const named = /^[\p{L}_][\p{L}\p{N}_]*\s+([*[\p{L}_][^]*)$/u.exec(t);
    if (named && !/^(struct|map|chan|func|interface)\b/.test(t)) t = named[1]!;
  }
  return typeName(t);
}

/** `resultType` of a type written at `at`, but none for a type parameter there (`f<T>(): T`: whatever the call makes it). */
function declaredResult(text: string, called: boolean, at: Node): string | undefined {
  const type = resultType(text, called);
  return type !== undefined && typeParametersAround(at).has(type) ? undefined : type;
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

/** Wrappers whose value is their operand's: `(x)`, `x!`, `await x` (a declared `Promise<T>` result is `T` already). */
const TRANSPARENT = new Set(['parenthesized_expression', 'parenthesized', 'non_null_expression', 'await_expression', 'await']);

/**
 * An expression as a receiver (`Chain`), for the languages' common shapes: a chain of names; a call (`f()`,
 * `x.m()`, Go's `pkg.F()`, Python's `a.b()`); a member taken (`x.m().items`); a construction (`new Foo()`, Go's
 * `T{…}` and `&T{…}`); an assertion (`x as Foo`, `<Foo>x`, Go's `x.(T)`). Undefined for anything else.
 */
function chainOf(node: Node | null, depth = 0): Chain | undefined {
  if (!node || depth > 2 * MAX_RECEIVER_STEPS) return undefined;
  if (QUALIFIER.test(node.text)) return { object: node.text, steps: [] };
  if (TRANSPARENT.has(node.type)) return chainOf(node.namedChild(node.namedChildCount - 1), depth + 1);
  const written = (type: Node | null | undefined): Chain | undefined => {
    const name = type && type.text !== 'const' ? typeName(type.text) : undefined;
    return name === undefined ? undefined : { base: name, steps: [] };
  };
  switch (node.type) {
    case 'new_expression':
      return written(node.childForFieldName('constructor'));
    case 'as_expression':
    case 'satisfies_expression':
      return written(node.namedChild(node.namedChildCount - 1));
    case 'type_assertion':
      return written(node.namedChild(0));
    case 'type_assertion_expression':
    case 'composite_literal':
      return written(node.childForFieldName('type'));
    case 'unary_expression':
      return node.childForFieldName('operand')?.type === 'composite_literal'
        ? chainOf(node.childForFieldName('operand'), depth + 1)
        : undefined;
  }
  const called = node.type === 'call_expression' || node.type === 'call' ? node.childForFieldName('function') : null;
  if (called) {
    if (NAME.test(called.text)) return { base: `${called.text}()`, steps: [] };
    const access = memberAccess(called);
    const inner = access && chainOf(access.object, depth + 1);
    return inner && { ...inner, steps: [...inner.steps, { name: access.name, call: true }] };
  }
  const access = memberAccess(node);
  const inner = access && chainOf(access.object, depth + 1);
  return inner && { ...inner, steps: [...inner.steps, { name: access.name, call: false }] };
}

/** A member's name (`#name`: a JavaScript private one). */
const NAME = /^#?[\p{L}_$][\p{L}\p{N}_$]*$/u;

/** `object.name` in the languages' grammars (TypeScript's member_expression, Python's attribute, Go's selector_expression). */
function memberAccess(node: Node): { object: Node; name: string } | undefined {
  const object = node.childForFieldName('object') ?? node.childForFieldName('operand');
  const name = node.childForFieldName('property') ?? node.childForFieldName('attribute') ?? node.childForFieldName('field');
  return object && name && NAME.test(name.text) ? { object, name: name.text } : undefined;
}

/** Each supertype to the innermost class-like definition around it, as a bare name (`pkg.Base<T>` → `Base`, `*Base` → `Base`). */
function attachSupertypes(
  symbols: ExtractedSymbol[],
  classAt: EnclosingAt,
  supertypes: ReadonlyArray<{ node: Node; implements: boolean }>,
): void {
  for (const { node, implements: implemented } of supertypes) {
    const owner = classAt(node.startIndex, node.endIndex);
    const name = bareType(node.text);
    if (owner < 0 || !name) continue;
    const list = implemented ? (symbols[owner]!.implements ??= []) : (symbols[owner]!.supertypes ??= []);
    if (!list.includes(name)) list.push(name);
  }
}

/** The named types a type alias's value is made of, through unions, intersections and parentheses (`A | (B & C<T>)`). */
function constituents(node: Node, depth = 0): string[] {
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

/** The innermost definition of some kinds spanning `start`..`end` (its ordinal), or -1. */
type EnclosingAt = (start: number, end: number) => number;

/**
 * Positions of the definitions read once (each read crosses into WebAssembly); then per question a binary search and
 * a climb of the parents: linear overall, where a scan of every earlier definition per supertype took minutes on a
 * file of 30,000 classes.
 */
function enclosingLookup(
  found: readonly FoundDefinition[],
  symbols: readonly ExtractedSymbol[],
): (wanted: (symbol: ExtractedSymbol) => boolean) => EnclosingAt {
  const starts = found.map((d) => d.node.startIndex);
  const ends = found.map((d) => d.node.endIndex);
  return (wanted) => (start, end) => {
    let i = lastAtOrBefore(starts, start);
    while (i >= 0 && !(ends[i]! >= end && wanted(symbols[i]!))) i = symbols[i]!.parent;
    return i;
  };
}

/** A type as written → its bare name (`pkg.Base<T>` → `Base`, `*Base` → `Base`, `a::b::Trait` → `Trait`). */
function bareType(text: string): string | undefined {
  return /([\p{L}_$][\p{L}\p{N}_$]*)\s*(<[^]*)?$/u.exec(text.replace(/\[[^]*$|\([^]*$/, ''))?.[1];
}

function kindOf(raw: string, node: Node): SymbolKind {
  if (raw === 'variable' && node.parent?.type === 'lexical_declaration' && node.parent.firstChild?.type === 'const') return 'constant';
  return (SYMBOL_KINDS as readonly string[]).includes(raw) ? (raw as SymbolKind) : 'other';
}

/** Containers by range (a stack of open definitions), then per-language refinements. */
function nest(language: string, found: readonly FoundDefinition[]): ExtractedSymbol[] {
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
      container: kind === 'method' && !container ? ownerType(language, node) : (container?.name ?? null),
      signature: signatureOf(node),
      parent,
    });
    ends.push(node.endIndex);
    open.push(symbols.length - 1);
  }
  return symbols;
}

/** The type a method defined outside it belongs to: Go's receiver (`func (s *Server) Start()` → `Server`), Rust's `impl` type. */
function ownerType(language: string, node: Node): string | null {
  if (language === 'go') {
    const receiver = node.childForFieldName('receiver');
    return receiver?.descendantsOfType('type_identifier')[0]?.text ?? null;
  }
  if (language === 'rust') {
    const impl = node.parent?.parent;
    const type = impl?.type === 'impl_item' ? impl.childForFieldName('type') : null;
    return type ? (/^[\p{L}_][\p{L}\p{N}_]*/u.exec(type.text.replace(/^.*::/, ''))?.[0] ?? null) : null;
  }
  return null;
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
