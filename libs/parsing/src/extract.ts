import type { Node } from 'web-tree-sitter';
import { collect, reexportsOfImports } from './captures.js';
import type { ExtractOptions } from './extract-options.js';
import {
  ANONYMOUS,
  BudgetExceeded,
  parseWithin,
  SIGNATURE_MAX,
  type Extraction,
  type ExtractedReference,
  type ExtractedSymbol,
  type FoundDefinition,
  type FoundReference,
  type SymbolKind,
} from './extraction.js';
import type { Grammar } from './grammars.js';
import { globalsOf, typeReceivers } from './receivers.js';
import { enclosingLookup, isShadowed, localScopes, ScopeTree, type EnclosingAt } from './scopes.js';
import { bareType, constituents, typeParametersAround } from './type-text.js';

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
    const {
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
    } = collect(matches, options);
    const found = [...byNameNode.values()].sort((a, b) => a.node.startIndex - b.node.startIndex || b.node.endIndex - a.node.endIndex);
    const symbols = nest(options, found);
    for (const [i, { node }] of found.entries()) {
      const returns = returnsAt.get(node.startIndex);
      // A result without a name (`(): { unit: string }`, `opts: {…}`) is the type its members are written in: theirs, by its definition's name.
      if (returns) symbols[i].returns = returns === ANONYMOUS ? symbols[i].name : returns;
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
      if (owner < 0 || symbols[owner].kind !== 'type') continue;
      // The alias's own type parameters (`type Maybe<T> = T | null`) are no types of the index.
      const parameters = typeParametersAround(value);
      const names = [...new Set(constituents(value))].filter((n) => !parameters.has(n));
      if (names.length > 0) symbols[owner].aliases = names;
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
      if (owner >= 0) use.receiver = symbols[owner].name;
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

/** References in source order, each with the ordinal of the innermost definition around it. */
function enclose(uses: FoundReference[], definitions: readonly FoundDefinition[]): ExtractedReference[] {
  uses.sort((a, b) => a.node.startIndex - b.node.startIndex);
  const out: ExtractedReference[] = [];
  const open: number[] = [];
  let next = 0;
  for (const use of uses) {
    const at = use.node.startIndex;
    while (next < definitions.length && definitions[next].node.startIndex <= at) {
      while (open.length > 0 && definitions[open.at(-1)!].node.endIndex <= definitions[next].node.startIndex) open.pop();
      open.push(next++);
    }
    while (open.length > 0 && definitions[open.at(-1)!].node.endIndex <= at) open.pop();
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
    const list = implemented ? (symbols[owner].implements ??= []) : (symbols[owner].supertypes ??= []);
    if (!list.includes(name)) list.push(name);
  }
}

/** The named types a type alias's value is made of, through unions, intersections and parentheses (`A | (B & C<T>)`). */

/** Containers by range (a stack of open definitions), then per-language refinements. */
function nest(options: ExtractOptions, found: readonly FoundDefinition[]): ExtractedSymbol[] {
  const symbols: ExtractedSymbol[] = [];
  const ends: number[] = [];
  const open: number[] = [];
  for (const { node, name, kind } of found) {
    while (open.length > 0 && ends[open.at(-1)!] <= node.startIndex) open.pop();
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
      container: kind === 'method' && !container ? ownerType(options, node) : (container?.name ?? null),
      signature: signatureOf(node),
      parent,
    });
    ends.push(node.endIndex);
    open.push(symbols.length - 1);
  }
  return symbols;
}

/** The type a method defined outside it belongs to, where the language says (`ExtractOptions.methodOwner`). */
function ownerType(options: ExtractOptions, node: Node): string | null {
  if (options.methodOwner === 'receiver') {
    const receiver = node.childForFieldName('receiver');
    return receiver?.descendantsOfType('type_identifier')[0]?.text ?? null;
  }
  if (options.methodOwner === 'impl') {
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
