import { SymbolKind as SymbolKindSchema } from '@sextant/contracts';
import type { Node, Tree } from 'web-tree-sitter';
import type { Grammar } from './grammars.js';

/*
 * What extraction gives (the records of a file's definitions, imports and references, and the receiver expressions
 * they carry), what it finds on the way (before nesting and typing), and the parse within a file's budget.
 */

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

export const SIGNATURE_MAX = 200;
/** The qualifier of a property key (`{name: …}`): a member of an object whose type the file does not say. */
export const KEY = '{}';
/** The receiver of a member of a type without a name (an anonymous struct, an object type literal): no class's. */
export const ANONYMOUS = '{…}';
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
  const base = step(first);
  return { base: base.name, call: base.call, steps: rest.map(step) };
}

export function receiverText(base: string, steps: readonly ReceiverStep[]): string | undefined {
  // `base` may have steps of its own (a chain typed from another: `x.a.b` with `x` of type `Foo.c`).
  const already = base.split('.').length - 1;
  if (already + steps.length > MAX_RECEIVER_STEPS || (base === ANONYMOUS && steps.length > 0)) return undefined;
  return base + steps.map((s) => `.${s.name}${s.call ? '()' : ''}`).join('');
}
export const QUALIFIER = /^[\p{L}\p{N}_$.#]{1,64}$/u;

/** Thrown when a file's parse or query runs past its time budget. */
export class BudgetExceeded extends Error {}

export interface FoundDefinition {
  node: Node;
  name: Node;
  kind: SymbolKind;
}

/** Where a reference is: a node of the tree, or a name inside a comment (`{@link Name}`). */
type Site = Pick<Node, 'startIndex' | 'text' | 'startPosition'>;

export interface FoundReference {
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
export interface Chain {
  object?: string;
  base?: string;
  steps: ReceiverStep[];
}

/**
 * A name whose type the file says (`@binding.local`: a parameter or variable, in its innermost scope;
 * `@binding.field`: a field of the class around it): the type's bare name, or `from` — another local
 * name whose type it takes (`this.store = store`).
 */
export interface TypedName {
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

/** Qualifiers that mean "the object the method runs on": the member is the enclosing class's. */
export const SELF: ReadonlySet<string> = new Set(['this', 'self', 'cls', '$this']);

/** A file's syntax tree, parsed within `timeoutMs` (else `BudgetExceeded`), and the budget's check for the query that follows. */
export function parseWithin(grammar: Grammar, source: string, timeoutMs: number): { tree: Tree; deadline: number; overBudget: () => void } {
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
