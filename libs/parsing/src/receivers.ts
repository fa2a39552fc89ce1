import type { Node } from 'web-tree-sitter';
import type { ExtractOptions } from './extract-options.js';
import {
  ANONYMOUS,
  KEY,
  MAX_RECEIVER_STEPS,
  QUALIFIER,
  receiverText,
  SELF,
  type Chain,
  type ExtractedSymbol,
  type FoundReference,
  type TypedName,
} from './extraction.js';
import type { EnclosingAt, ScopeTree } from './scopes.js';
import { elementType, typeName } from './type-text.js';

/* Member accesses given the type of their object (a receiver expression) where the file says it. */

/**
 * Gives member accesses the type of their object where the file says it: `x.f` with `x` a parameter or
 * variable typed (or constructed) in a scope around the access, `this.x.f` / `self.x.f` with `x` a field
 * typed in the class around it, `super.f` / `super().f` the class's supertype. The innermost binding wins,
 * as the language's scoping does.
 */
export function typeReceivers(
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
        (u.qualifier?.includes('.') && SELF.has(u.qualifier.split('.')[0])) ||
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
    return owner >= 0 && symbols[owner].line >= binding.literal.line ? undefined : binding;
  };
  // A type without a name is its declaration's: the definition it is written in (its fields' container).
  const named = (type: string | undefined, at: number): string | undefined => {
    if (type !== ANONYMOUS) return type;
    const owner = definitionAt(at, at + 1);
    return owner >= 0 ? symbols[owner].name : type;
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
      return owner >= 0 ? symbols[owner].name : undefined;
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
    else if (SELF.has(head) || head === 'super') {
      const owner = classAround(at);
      if (owner < 0) return undefined;
      if (head === 'super') type = symbols[owner].supertypes?.[0];
      else if (rest.length === 0) type = symbols[owner].name;
      else {
        const field = fields.get(`${owner}\0${rest[0]}`);
        const declared = field ? typeOf(field, depth + 1) : undefined;
        if (declared !== undefined) rest.shift();
        type = declared ?? symbols[owner].name;
      }
    } else type = typeOf(bindingOf(head, at), depth);
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
export function globalsOf(options: ExtractOptions): ReadonlySet<string> {
  if (!options.globals) return NO_GLOBALS;
  let set = globalSets.get(options);
  if (!set) globalSets.set(options, (set = new Set(options.globals)));
  return set;
}

/** Wrappers whose value is their operand's: `(x)`, `x!`, `await x` (a declared `Promise<T>` result is `T` already). */
const TRANSPARENT = new Set(['parenthesized_expression', 'parenthesized', 'non_null_expression', 'await_expression', 'await']);

/**
 * An expression as a receiver (`Chain`), for the languages' common shapes: a chain of names; a call (`f()`,
 * `x.m()`, Go's `pkg.F()`, Python's `a.b()`); a member taken (`x.m().items`); a construction (`new Foo()`, Go's
 * `T{…}` and `&T{…}`); an assertion (`x as Foo`, `<Foo>x`, Go's `x.(T)`). Undefined for anything else.
 */
export function chainOf(node: Node | null, depth = 0): Chain | undefined {
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
