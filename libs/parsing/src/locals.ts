import type { Node } from 'web-tree-sitter';
import { BudgetExceeded, parseWithin, SIGNATURE_MAX } from './extraction.js';
import type { Grammar } from './grammars.js';
import { ScopeTree } from './scopes.js';

/* Go to definition and the uses of a local (a parameter, a local variable), by the query's `@local.*` captures. */

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
