/**
 * The symbol tools end to end, embedded as a user runs it: a workspace of
 * TypeScript, Python and Go written so that names are ambiguous (two
 * functions `add`, methods `add` on two classes, a parameter `add`, an
 * alias through a re-export, namespace imports, Go package-qualified calls),
 * indexed with index_repo, then asked over MCP.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callTool, git, httpClient, startEmbedded, writeTree, type Sextant } from '@sextant/testing';
import { expectToolError } from './scenarios.js';

const FILES: Record<string, string> = {
  'src/util/math.ts': [
    'export function add(a: number, b: number) { return a + b; }',
    'export function twice(x: number) { return add(x, x); }',
  ].join('\n'),
  'src/util/index.ts': ["export { add as plus } from './math';", "export * from './math';"].join('\n'),
  'src/cart.ts': [
    "import { add } from './util/math';",
    "import * as m from './util/math';",
    "import { plus, twice } from './util';",
    'export class Cart {',
    '  total = 0;',
    '  add(price: number) { this.total = add(this.total, price); return this; }',
    '}',
    'export class Wallet {',
    '  add(coins: number) { return m.add(coins, 1) + plus(1, 2) + twice(coins); }',
    '}',
    'function shadow(add: number) { return add; }',
  ].join('\n'),
  'src/other.ts': ['export function add() { return 0; }', 'add();'].join('\n'),
  'src/checkout.ts': ["import { Cart } from './cart';", 'export function checkout(cart: Cart) { return cart.add(5); }'].join('\n'),
  'src/cart.test.ts': ["import { Cart } from './cart';", 'new Cart().add(1);'].join('\n'),
  'src/priced.ts': 'export interface Priced { price(): number }',
  'src/premium.ts': [
    "import { Cart } from './cart';",
    "import type { Priced } from './priced';",
    'export class Premium extends Cart implements Priced {',
    '  price() { return 1; }',
    '}',
  ].join('\n'),
  'src/toys.ts': [
    'export interface Toy { mode: string }',
    'export type Boxed = Toy & { tag: string };',
    "export class Top implements Toy { mode = 'l'; spin = 1; turn() { return this.spin + this.mode.length; } }",
    "export class Yoyo implements Toy { mode = 'r'; spin = 2; turn() { return this.spin + this.mode.length; } }",
    "export class Gift implements Boxed { mode = 't'; tag = 't'; spin = 3; turn() { return this.spin + this.mode.length; } }",
    'export function play(t: Toy, b: Boxed) { return t.mode + b.mode; }',
  ].join('\n'),
  'src/kiln.ts': 'export default class Kiln { fire() { return 1; } }',
  'src/pottery.ts': [
    "import Oven from './kiln';",
    'export class Pot extends Oven { fire() { return 2; } }',
    'export class Vase extends Oven { glaze() { return this.fire(); } }',
  ].join('\n'),
  'src/a.ts': ["import { b } from './b';", 'export const a = () => b();'].join('\n'),
  'src/b.ts': ["import { a } from './a';", 'export const b = () => a;'].join('\n'),
  'pkg/__init__.py': '',
  'pkg/models.py': [
    'class User:',
    '    def save(self):',
    '        return self.validate()',
    '    def validate(self):',
    '        return True',
  ].join('\n'),
  'pkg/service.py': [
    'from .models import User as U',
    'import pkg.models',
    '',
    'def create(name):',
    '    u = U()',
    '    u.save()',
    '    return pkg.models.User()',
  ].join('\n'),
  'src/shapes.ts': [
    'export class Circle { area() { return 1; } }',
    'export class Square { area() { return 2; } }',
    'export function measure(c: Circle, s: Square) { const t = new Square(); return c.area() + s.area() + t.area(); }',
    'export function make(): Square { return new Square(); }',
    'export function use(list: Square[]) { const m = make(); let n = m.area() + make().area(); for (const q of list) n += q.area(); return n; }',
    'export type AnyShape = Circle | Square;',
    'export function pick(s: AnyShape) { return s.area(); }',
  ].join('\n'),
  'pkg/shapes.py': [
    'class Shape:',
    '    def area(self):',
    '        return 0',
    '    def describe(self):',
    '        return self.area()',
    'class Circle(Shape):',
    '    def area(self):',
    '        return super().area() + 1',
    'class Dot(Shape):',
    '    pass',
    'def total(c: Circle, d: Dot, other):',
    '    return c.area() + d.area() + other.area()',
  ].join('\n'),
  'pkg/use_shapes.py': ['from pkg import shapes', '', 'def make():', '    return shapes.total(None, None, None)'].join('\n'),
  'go.mod': 'module example.com/shop\n\ngo 1.22\n',
  'store/store.go': [
    'package store',
    '',
    'type Store struct{}',
    '',
    'func New() *Store { return &Store{} }',
    '',
    'func (s *Store) Get(k string) string { return k }',
  ].join('\n'),
  'store/helpers.go': ['package store', '', 'func Default() *Store { return New() }'].join('\n'),
  'cmd/main.go': ['package main', '', 'import "example.com/shop/store"', '', 'func main() { s := store.New(); s.Get("a") }'].join('\n'),
  'store/cache.go': ['package store', '', 'type Cache struct {', '\tStore', '}'].join('\n'),
  'shapes/shape.go': [
    'package shapes',
    'type Shape interface{ Area() int }',
    'type Box struct{}',
    'func (b Box) Area() int { return 1 }',
    'func Total(s Shape, b Box) int { return s.Area() + b.Area() }',
  ].join('\n'),
  'shapes/tables.go': [
    'package shapes',
    'type Circle struct{ R int }',
    'func (c Circle) Area() int { return c.R }',
    'func NewCircle(r int) *Circle { return &Circle{R: r} }',
    'type Case struct{ R, want int }',
    'var cases = []Case{{R: 1, want: 3}}',
    'const want = 3',
    'func Check(b Box) int {',
    '\tc := NewCircle(2)',
    '\tn := c.Area() + NewCircle(3).Area() + b.Area()',
    '\tfor _, tc := range cases {',
    '\t\tn += tc.R',
    '\t}',
    '\treturn n + want',
    '}',
  ].join('\n'),
  'src/garage.ts': [
    'export class Engine { start() { return 1; } }',
    'export class Motor { start() { return 2; } }',
    'export interface Parts { engine: Engine; motor: Motor }',
    'export class Car {',
    '  parts: Parts;',
    '  spare(): Motor { return this.parts.motor; }',
    '  run(other: Car) { this.parts.engine.start(); other.parts.motor.start(); this.spare().start(); }',
    '}',
    'export class Wheel { constructor(readonly size: number) {} }',
    'export const front = new Wheel(17), back = new Engine();',
  ].join('\n'),
  'garage/garage.go': [
    'package garage',
    '',
    'type Engine struct{}',
    'func (e *Engine) Start() int { return 1 }',
    'type Motor struct{}',
    'func (m *Motor) Start() int { return 2 }',
    'type Car struct{ engine *Engine; motor Motor }',
    'func (c *Car) Spare() *Motor { return &c.motor }',
    'func (c *Car) Run() { c.engine.Start(); c.Spare().Start(); m := c.motor; m.Start() }',
  ].join('\n'),
  'src/vocab/limit.ts': ["const def = { keyword: 'limit' };", 'export default def;'].join('\n'),
  'src/vocab/index.ts': ["import limit from './limit';", 'export const all = [limit];'].join('\n'),
  'src/garage-use.ts': ["import { Wheel as W } from './garage';", 'export const spare = new W(15);'].join('\n'),
  'src/vocab/all.ts': "export * from './limit';",
  // A barrel that imports a name and exports it with a bare `export { … }`: its importers use the definition.
  'src/vocab/words.ts': 'export interface Word { text: string }',
  'src/vocab/barrel.ts': ["import type { Word } from './words';", 'export type { Word };'].join('\n'),
  'src/vocab/word-use.ts': ["import type { Word } from './barrel';", "export const w: Word = { text: 'a' };"].join('\n'),
  'src/vocab/barrel-use.ts': ["import limitAgain from './all';", 'export const again = [limitAgain];'].join('\n'),
  'src/overloads.ts': [
    'export class Pipe {',
    '  run(): number;',
    '  run(a: number): number;',
    '  run(a?: number): number { return a ?? 0; }',
    '}',
    'export const p = new Pipe().run(1), q = new Pipe().run();',
  ].join('\n'),
  'src/cases.test.ts': [
    "test('a', () => { type T = string; const x: T = ''; });",
    "test('b', () => { type T = number; const y: T = 1; });",
  ].join('\n'),
  // Members of types without a name: each is its owner's (the definition it is written in), whatever else is named alike.
  'src/sizes/en.ts': [
    'export function describe(origin: string) {',
    "  const sizes: Record<string, { unit: string }> = { text: { unit: 'chars' } };",
    '  function sizing(o: string): { unit: string } { return sizes[o]!; }',
    '  const found = sizing(origin);',
    '  return found.unit;',
    '}',
    'export const api = { ping() { return 1; } };',
    'export const cast = (x: unknown) => (x as { unit: string }).unit;',
  ].join('\n'),
  'src/sizes/de.ts': [
    "import { api } from './en';",
    'export function describe(origin: string) {',
    '  function sizing(o: string): { unit: string } { return { unit: o }; }',
    '  return sizing(origin).unit + api.ping();',
    '}',
  ].join('\n'),
  // An object literal's method in a value declared of a named type is that type's member.
  'src/kw/keyword.ts': 'export interface Keyword { code(): number }',
  'src/kw/one.ts': ["import type { Keyword } from './keyword';", 'export const one: Keyword = { code() { return 1; } };'].join('\n'),
  'src/kw/two.ts': [
    "import type { Keyword } from './keyword';",
    'export const two: Keyword = { code() { return 2; } };',
    'export const run = (k: Keyword) => k.code();',
  ].join('\n'),
  // An object literal a function returns is of the type the function declares (of `T`, for a `Promise<T>`).
  'src/kw/sizes.ts': [
    'export interface Size { unit: string }',
    'export interface Weight { unit: number }',
    "export function size(): Size { return { unit: 'cm' }; }",
    'export const weight = async (): Promise<Weight> => { return { unit: 1 }; };',
  ].join('\n'),
  // `one.code()` through a value declared `Keyword`: Keyword's member first.
  'src/kw/use.ts': ["import { one } from './one';", 'export const three = one.code();'].join('\n'),
  // The same with the declared type in another directory than the literal and its use.
  'src/far/three.ts': [
    "import type { Keyword } from '../kw/keyword';",
    'export const three: Keyword = { code() { return 3; } };',
    'export const x = three.code();',
  ].join('\n'),
  // `this` in an object literal's method is the literal, not the class around it.
  'src/stats.ts': [
    'export class Stats {',
    '  count() { return 1; }',
    '  get view() {',
    '    const v = { count() { return 2; }, doubled() { return this.count() * 2; } };',
    '    return v;',
    '  }',
    '}',
    // `Object.keys` is the global's, not a `keys` of the index.
    'export class Keys { keys() { return [1]; } }',
    'export const all = Object.keys(new Keys()).concat(new Keys().keys());',
  ].join('\n'),
  // A private field's type types `this.#pool`; an access of unknown type in a file that names a rival class is not guessed.
  'src/pool.ts': [
    'interface Options { size: number }',
    'class Pool { destroy() { return 1; } }',
    'export class Front {',
    '  #pool: Pool = new Pool();',
    '  destroy() { return this.#pool.destroy(); }',
    '  size() { return 0; }',
    '  resize(opts: Options, o) { return opts.size + o.size; }',
    '}',
    'export const front = new Front();',
  ].join('\n'),
  'src/sizes/it.ts': [
    'const sizes: Record<string, { unit: string }> = {};',
    'function sizing(o: string): { unit: string } { return sizes[o]!; }',
    "export const label = sizing('a').unit;",
  ].join('\n'),
  'src/sizes/fr.ts': [
    'const api = { ping() { return 2; } };',
    'export const pong = api.ping();',
    // Another `sizing`, of another result: what `sizing(…)` gives is not known by name alone.
    'export function sizing(o: string): string { return o; }',
  ].join('\n'),
  'README.md': '# Shop\n\nNot parsed: kept at file level.\n',
};

/** A second repository, for answers over several repositories and a project. */
const TOOLS: Record<string, string> = {
  'lib/add.ts': 'export function add(a: number) { return a; }\nadd(1);\n',
  // Three definitions of one name: a test's, and two of files whose paths sort around it (one names `spec`, as no test's does).
  'lib/add.test.ts': 'export function setup() { return 1; }\n',
  'lib/aspect.ts': 'export function setup() { return 2; }\n',
  'lib/setup.ts': 'export function setup() { return 3; }\n',
};

interface Refs {
  freshness: Array<{ repo: string; commit: string | null; behind_head: boolean | null }>;
  definitions: Array<{ path: string; name: string; line: number; container: string | null }>;
  references: Array<{ repo: string; path: string; line: number; column: number; kind: string; snippet: string; enclosing: string | null }>;
  total: number;
  truncated: boolean;
}

const sites = (body: Refs) => body.references.map((r) => `${r.path}:${r.line} ${r.kind}`);

describe('symbol tools (embedded)', () => {
  let base: string;
  let workspace: string;
  let sextant: Sextant;
  let client: Client;

  before(async () => {
    base = mkdtempSync(join(tmpdir(), 'sextant-symbols-'));
    workspace = join(base, 'shop');
    writeTree(workspace, FILES);
    git(workspace, 'init', '-q', '--initial-branch=main');
    git(workspace, 'add', '-A');
    git(workspace, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init');
    sextant = await startEmbedded({ SEXTANT_WORKSPACE: workspace, SEXTANT_PROGRESS_POLL_MS: '50' });
    client = await httpClient(sextant.url);
    const job = await client.callTool({ name: 'index_repo', arguments: {} }, undefined, { onprogress: () => undefined });
    assert.equal((job.structuredContent as { status: string }).status, 'completed', JSON.stringify(job.structuredContent));
  });
  after(async () => {
    await client?.close();
    await sextant?.stop();
    rmSync(base, { recursive: true, force: true });
  });

  it('finds the references of one of several same-named functions: by import, alias through a re-export, namespace; not a parameter', async () => {
    const found = await callTool<Refs>(client, 'find_references', { path: 'src/util/math.ts', line: 1 });
    assert.equal(found.isError, false, JSON.stringify(found.body));
    assert.deepEqual(
      found.body.definitions.map((d) => [d.path, d.name, d.line]),
      [['src/util/math.ts', 'add', 1]],
    );
    assert.deepEqual(sites(found.body), [
      'src/cart.ts:1 import',
      'src/cart.ts:3 import', // `plus`: the re-exported alias
      'src/cart.ts:6 call',
      'src/cart.ts:9 call', // m.add
      'src/cart.ts:9 call', // plus(1, 2)
      'src/util/index.ts:1 import',
      'src/util/index.ts:1 import', // `add as plus`: both names, as the language service lists them
      'src/util/math.ts:2 call',
    ]);
    const call = found.body.references.find((r) => r.path === 'src/cart.ts' && r.line === 6)!;
    assert.equal(call.enclosing, 'Cart.add');
    assert.equal(call.snippet, 'add(price: number) { this.total = add(this.total, price); return this; }');
    assert.equal(call.column, 36);
    assert.equal(found.body.total, 8);
    // Which commit the answer reflects, and that the branch has not moved past it.
    const head = git(workspace, 'rev-parse', 'HEAD').trim();
    assert.deepEqual(found.body.freshness, [{ repo: 'shop', commit: head, behind_head: false }]);

    const other = await callTool<Refs>(client, 'find_references', { path: 'src/other.ts', line: 1, include_definitions: true });
    assert.deepEqual(sites(other.body), ['src/other.ts:1 definition', 'src/other.ts:2 call']);
    const viaExportStar = await callTool<Refs>(client, 'find_references', { name: 'twice' });
    assert.deepEqual(sites(viaExportStar.body), ['src/cart.ts:3 import', 'src/cart.ts:9 call']);
  });

  it('tells same-named methods apart by the class a file mentions, and bounds the answer', async () => {
    const cart = await callTool<Refs>(client, 'find_references', { name: 'Cart.add' });
    assert.deepEqual(
      cart.body.definitions.map((d) => [d.container, d.name]),
      [['Cart', 'add']],
    );
    assert.deepEqual(sites(cart.body), ['src/cart.test.ts:2 call', 'src/checkout.ts:2 call']);
    const wallet = await callTool<Refs>(client, 'find_references', { path: 'src/cart.ts', line: 9, column: 2 });
    assert.deepEqual(sites(wallet.body), []);
    const limited = await callTool<Refs>(client, 'find_references', { path: 'src/util/math.ts', line: 1, limit: 2 });
    assert.equal(limited.body.references.length, 2);
    assert.equal(limited.body.total, 8);
    assert.equal(limited.body.truncated, true);
  });

  it('tells same-named methods apart by the declared type of the object, in TypeScript and Python', async () => {
    const at = (path: string, line: number, column: number) => callTool<Refs>(client, 'find_references', { path, line, column });
    const columns = (body: Refs) => body.references.map((r) => `${r.path}:${r.line}:${r.column}`);
    // One file mentions both classes: only the declared types (`c: Circle`, `s: Square`, `new Square()`) tell the calls apart.
    assert.deepEqual(columns((await at('src/shapes.ts', 1, 22)).body).slice(0, 1), ['src/shapes.ts:3:81']);
    assert.deepEqual(columns((await at('src/shapes.ts', 2, 22)).body).slice(0, 2), ['src/shapes.ts:3:92', 'src/shapes.ts:3:103']);
    // Python binds a member access to the definition it resolves to: the class's own, else the nearest base's.
    // Shape.area: `self.area()` in Shape, `super().area()` in Circle, `d.area()` (Dot inherits it); not Circle's
    // override, its call `c.area()`, nor `other.area()` (other is untyped and two classes define `area`).
    assert.deepEqual(columns((await at('pkg/shapes.py', 2, 8)).body), ['pkg/shapes.py:5:20', 'pkg/shapes.py:8:23', 'pkg/shapes.py:12:24']);
    assert.deepEqual(columns((await at('pkg/shapes.py', 7, 8)).body), ['pkg/shapes.py:12:13']);
    // Go to definition takes the same types: `s.area()` is Square's (first; the other candidates follow).
    type Found = { definitions: Array<{ path: string; line: number; container: string | null }> };
    const square = await callTool<Found>(client, 'locate_symbol', { name: 'area', path: 'src/shapes.ts', line: 3, column: 92 });
    assert.deepEqual(
      square.body.definitions.slice(0, 1).map((d) => [d.container, d.line]),
      [['Square', 2]],
    );
    // Go: a Box satisfies Shape without saying so, so a call through a Shape may reach Box.Area, as gopls lists it.
    assert.deepEqual(columns((await at('shapes/shape.go', 4, 13)).body).slice(0, 2), ['shapes/shape.go:5:42', 'shapes/shape.go:5:53']);
    // `from pkg import shapes` binds the module: `shapes.total` is a use of its function.
    assert.deepEqual(columns((await at('pkg/shapes.py', 11, 4)).body), ['pkg/use_shapes.py:4:18']);
  });

  it('relates same-named members of sibling classes only through a supertype that declares the name, as the language service does', async () => {
    const at = async (line: number, column: number) =>
      (await callTool<Refs>(client, 'find_references', { path: 'src/toys.ts', line, column })).body.references.map(
        (r) => `${r.line}:${r.column}${r.kind === 'definition' ? ' definition' : ''}`,
      );
    // Toy does not declare `spin`: Top's is its own, not Yoyo's nor Gift's (the TypeScript language service: 3:77 only).
    assert.deepEqual(await at(3, 46), ['3:77']);
    // Toy declares `mode`: Yoyo's implements the same member, and accesses through a Toy or a Boxed (`type Boxed = Toy & …`)
    // reach it; Gift implements the alias and declares its own (the language service: 1:23 4:35 6:50 6:59 3:89 4:90).
    assert.deepEqual((await at(3, 34)).sort(), ['1:23 definition', '3:89', '4:35 definition', '4:90', '6:50', '6:59']);
    // From Gift's side the alias is not followed up to Toy: its own `this.mode`, not Top's or Yoyo's. (`b.mode` is also
    // listed: an access through a type alias outside the family binds as untyped, here in the definition's own file.)
    const gift = await at(5, 37);
    assert.ok(gift.includes('5:103') && !gift.includes('3:89') && !gift.includes('4:90'), gift.join(' '));
    // A class imported under another name (`import Oven from './kiln'`, its default export `Kiln`) is one family by
    // both names, seen from either side (the language service: pottery.ts:3:55 and the other declaration).
    const fire = async (path: string, line: number, column: number) =>
      (await callTool<Refs>(client, 'find_references', { path, line, column })).body.references.map(
        (r) => `${r.path}:${r.line}:${r.column} ${r.kind}`,
      );
    assert.deepEqual((await fire('src/kiln.ts', 1, 28)).sort(), ['src/pottery.ts:2:32 definition', 'src/pottery.ts:3:55 call']);
    assert.deepEqual((await fire('src/pottery.ts', 2, 32)).sort(), ['src/kiln.ts:1:28 definition', 'src/pottery.ts:3:55 call']);
  });

  it('binds a member of a type without a name to the definition it is written in, as the language service does', async () => {
    const at = async (path: string, line: number, column: number) =>
      (await callTool<Refs>(client, 'find_references', { path, line, column })).body.references.map(
        (r) => `${r.path}:${r.line}:${r.column}`,
      );
    // `sizes`'s `{ unit }`: the key its initializer writes; not `found.unit` (the result of `sizing`), nor de.ts's.
    assert.deepEqual(await at('src/sizes/en.ts', 2, 32), ['src/sizes/en.ts:2:60']);
    // `sizing`'s result: `found.unit`, as `found = sizing(…)`; not the key of `sizes`, nor de.ts's `sizing(…).unit`.
    assert.deepEqual(await at('src/sizes/en.ts', 3, 32), ['src/sizes/en.ts:5:15']);
    assert.deepEqual(await at('src/sizes/de.ts', 3, 32), ['src/sizes/de.ts:3:58', 'src/sizes/de.ts:4:24']);
    // An object literal's method: through its constant where that is imported (de.ts), not through fr.ts's own `api`.
    assert.deepEqual(await at('src/sizes/en.ts', 7, 21), ['src/sizes/de.ts:4:35']);
    // A type written outside any definition (a cast's): used where it is written.
    assert.deepEqual(await at('src/sizes/en.ts', 8, 44), ['src/sizes/en.ts:8:60']);
    // `one: Keyword`: its `code` is Keyword's, which `two` implements too and `k.code()` calls (the language service lists all three).
    const code = (await callTool<Refs>(client, 'find_references', { path: 'src/kw/one.ts', line: 2, column: 30 })).body.references;
    assert.deepEqual(code.map((r) => `${r.path}:${r.line}:${r.column} ${r.kind}`).sort(), [
      'src/far/three.ts:2:32 definition',
      'src/far/three.ts:3:23 call',
      'src/kw/keyword.ts:1:27 definition',
      'src/kw/two.ts:2:30 definition',
      'src/kw/two.ts:3:37 call',
      'src/kw/use.ts:2:25 call',
    ]);
    // A returned literal's key is a member of the declared result's type, not of every type with a member of its name.
    assert.deepEqual(await at('src/kw/sizes.ts', 1, 24), ['src/kw/sizes.ts:3:40']);
    assert.deepEqual(await at('src/kw/sizes.ts', 2, 26), ['src/kw/sizes.ts:4:62']);
    // `this.#pool.destroy()` is Pool's (`#pool: Pool`), not Front's; `o.size` (`o` of unknown type) is not Front's
    // guessed in a file that names Options, which has a `size` too.
    assert.deepEqual(await at('src/pool.ts', 2, 13), ['src/pool.ts:5:32']);
    assert.deepEqual(await at('src/pool.ts', 5, 2), []);
    assert.deepEqual(await at('src/pool.ts', 6, 2), []);
    // Go to definition from `sizing('a').unit`: the file's own `sizing`'s result, though another file's `sizing` differs.
    type Found = { definitions: Array<{ path: string; line: number }> };
    const unit = await callTool<Found>(client, 'locate_symbol', { name: 'unit', path: 'src/sizes/it.ts', line: 3, column: 33 });
    assert.deepEqual(
      unit.body.definitions.slice(0, 1).map((d) => `${d.path}:${d.line}`),
      ['src/sizes/it.ts:2'],
    );
    // Through a value declared of that type (`one.code()`, `one: Keyword`): the same.
    const through = await callTool<Found>(client, 'locate_symbol', { name: 'code', path: 'src/kw/use.ts', line: 2, column: 25 });
    assert.deepEqual(
      through.body.definitions.slice(0, 2).map((d) => `${d.path}:${d.line}`),
      ['src/kw/keyword.ts:1', 'src/kw/one.ts:2'],
    );
    const far = await callTool<Found>(client, 'locate_symbol', { name: 'code', path: 'src/far/three.ts', line: 3, column: 23 });
    assert.deepEqual(
      far.body.definitions.slice(0, 2).map((d) => `${d.path}:${d.line}`),
      ['src/kw/keyword.ts:1', 'src/far/three.ts:2'],
    );
    // `this.count()` in the literal's `doubled` is the literal's `count`, not the class's.
    assert.deepEqual(await at('src/stats.ts', 2, 2), []);
    assert.deepEqual(await at('src/stats.ts', 4, 16), ['src/stats.ts:4:63']);
    assert.deepEqual(await at('src/stats.ts', 8, 20), ['src/stats.ts:9:61']);
    // Go to definition at an object literal's member: the member of the type it is declared as, then the literal's own.
    const own = await callTool<Found>(client, 'locate_symbol', { name: 'code', path: 'src/kw/one.ts', line: 2, column: 30 });
    assert.deepEqual(
      own.body.definitions.slice(0, 2).map((d) => `${d.path}:${d.line}`),
      ['src/kw/keyword.ts:1', 'src/kw/one.ts:2'],
    );
  });

  it('types the results of calls by their declared result, and elements by their collection', async () => {
    const at = (path: string, line: number, column: number) => callTool<Refs>(client, 'find_references', { path, line, column });
    const columns = (body: Refs) => body.references.map((r) => `${r.path}:${r.line}:${r.column}`);
    // `const m = make()`, `make().area()` (make(): Square) and `for (const q of list)` (list: Square[]) are Square's,
    // in a file that names Circle too. `s: AnyShape` (a type alias of both) is either's, as the language service reads it.
    assert.deepEqual(columns((await at('src/shapes.ts', 1, 22)).body), ['src/shapes.ts:3:81', 'src/shapes.ts:7:45']);
    assert.deepEqual(columns((await at('src/shapes.ts', 2, 22)).body), [
      'src/shapes.ts:3:92',
      'src/shapes.ts:3:103',
      'src/shapes.ts:5:66',
      'src/shapes.ts:5:82',
      'src/shapes.ts:5:119',
      'src/shapes.ts:7:45',
    ]);
    // Go: `c := NewCircle(2)` and `NewCircle(3).Area()` are Circle's (NewCircle returns *Circle), not Box's.
    assert.deepEqual(columns((await at('shapes/shape.go', 4, 13)).body), [
      'shapes/shape.go:5:42',
      'shapes/shape.go:5:53',
      'shapes/tables.go:10:41',
    ]);
    assert.deepEqual(columns((await at('shapes/tables.go', 3, 16)).body), [
      'shapes/shape.go:5:42',
      'shapes/tables.go:10:8',
      'shapes/tables.go:10:30',
    ]);
    // Case.R: the key of an element of `[]Case{…}` and `tc.R` with `tc` ranging over it; Circle.R: `c.R`, `Circle{R: r}`.
    assert.deepEqual(columns((await at('shapes/tables.go', 5, 18)).body), ['shapes/tables.go:6:20', 'shapes/tables.go:12:10']);
    assert.deepEqual(columns((await at('shapes/tables.go', 2, 20)).body), ['shapes/tables.go:3:38', 'shapes/tables.go:4:47']);
    // A struct literal's key `want:` is the field, not a use of the constant `want`.
    assert.deepEqual(columns((await at('shapes/tables.go', 7, 6)).body), ['shapes/tables.go:14:12']);
  });

  it('types member chains by the declared types of fields, properties and methods, and goes to definition through them', async () => {
    const at = (path: string, line: number, column: number) => callTool<Refs>(client, 'find_references', { path, line, column });
    const columns = (body: Refs) => body.references.map((r) => `${r.path}:${r.line}:${r.column}`);
    // One file names both classes: `this.parts.engine` (parts: Parts, Parts.engine: Engine) is an Engine;
    // `other.parts.motor` (other: Car) and `this.spare()` (spare(): Motor) are Motors.
    assert.deepEqual(columns((await at('src/garage.ts', 1, 22)).body), ['src/garage.ts:7:38']);
    assert.deepEqual(columns((await at('src/garage.ts', 2, 21)).body), ['src/garage.ts:7:65', 'src/garage.ts:7:87']);
    // Go: `c.engine` (engine *Engine), `c.Spare()` (returns *Motor), `m := c.motor` (motor Motor).
    assert.deepEqual(columns((await at('garage/garage.go', 4, 17)).body), ['garage/garage.go:9:31']);
    assert.deepEqual(columns((await at('garage/garage.go', 6, 16)).body), ['garage/garage.go:9:50', 'garage/garage.go:9:75']);
    type Found = { definitions: Array<{ path: string; line: number; container: string | null }> };
    const go = async (path: string, line: number, column: number) =>
      (
        await callTool<Found>(client, 'locate_symbol', { name: path.endsWith('.go') ? 'Start' : 'start', path, line, column })
      ).body.definitions
        .slice(0, 1)
        .map((d) => [d.container, d.line]);
    assert.deepEqual(await go('src/garage.ts', 7, 65), [['Motor', 2]]);
    assert.deepEqual(await go('src/garage.ts', 7, 38), [['Engine', 1]]);
    assert.deepEqual(await go('garage/garage.go', 9, 75), [['Motor', 6]]);
    // A default export is what a default import binds, under the importer's name.
    // (`export * from` passes every name on but the default: barrel-use.ts's import is not of it.)
    assert.deepEqual(columns((await at('src/vocab/limit.ts', 1, 6)).body), [
      'src/vocab/index.ts:1:7',
      'src/vocab/index.ts:2:20',
      'src/vocab/limit.ts:2:15',
    ]);
    // `Word` through a barrel's bare `export type { Word }`: its importer's uses too.
    assert.deepEqual(columns((await at('src/vocab/words.ts', 1, 17)).body), [
      'src/vocab/barrel.ts:1:14',
      'src/vocab/barrel.ts:2:14',
      'src/vocab/word-use.ts:1:14',
      'src/vocab/word-use.ts:2:16',
    ]);
    assert.deepEqual(
      (
        await callTool<Found>(client, 'locate_symbol', { name: 'limit', path: 'src/vocab/index.ts', line: 2, column: 20 })
      ).body.definitions.map((d) => [d.path, d.line]),
      [['src/vocab/limit.ts', 1]],
    );
    // An overloaded method: the signature that takes as many arguments as the call passes.
    const overload = async (column: number) =>
      (await callTool<Found>(client, 'locate_symbol', { name: 'run', path: 'src/overloads.ts', line: 6, column })).body.definitions
        .slice(0, 1)
        .map((d) => d.line);
    assert.deepEqual(await overload(28), [3]);
    assert.deepEqual(await overload(51), [2]);
    // A name declared again in each test case: the declaration nearest before the use.
    const local = await callTool<Found>(client, 'locate_symbol', { name: 'T', path: 'src/cases.test.ts', line: 2, column: 44 });
    assert.deepEqual(
      local.body.definitions.slice(0, 1).map((d) => [d.path, d.line]),
      [['src/cases.test.ts', 2]],
    );
    // A constructor's references are the calls of its class, under whatever name the importer gives it.
    assert.deepEqual(columns((await at('src/garage.ts', 9, 21)).body), ['src/garage-use.ts:2:25', 'src/garage.ts:10:25']);
  });

  it('follows Python aliases and module imports, and Go package-qualified calls and same-package uses', async () => {
    const user = await callTool<Refs>(client, 'find_references', { name: 'User' });
    assert.deepEqual(sites(user.body), ['pkg/service.py:1 import', 'pkg/service.py:5 call', 'pkg/service.py:7 call']);
    const validate = await callTool<Refs>(client, 'find_references', { name: 'validate' });
    assert.deepEqual(
      validate.body.references.map((r) => [r.path, r.line, r.enclosing]),
      [['pkg/models.py', 3, 'User.save']],
    );
    const created = await callTool<Refs>(client, 'find_references', { name: 'New' });
    assert.deepEqual(sites(created.body), ['cmd/main.go:5 call', 'store/helpers.go:3 call']);
    const get = await callTool<Refs>(client, 'find_references', { name: 'Store.Get' });
    assert.deepEqual(sites(get.body), ['cmd/main.go:5 call']);
  });

  it('goes to the definition a name denotes where it is used (locate_symbol with path and line)', async () => {
    type Found = { definitions: Array<{ path: string; line: number; container: string | null }> };
    const first = async (args: Record<string, unknown>) => {
      const found = await callTool<Found>(client, 'locate_symbol', args);
      assert.equal(found.isError, false, JSON.stringify(found.body));
      const top = found.body.definitions[0];
      return top && `${top.path}:${top.line}${top.container ? ` ${top.container}` : ''}`;
    };
    // `add` on line 6 of cart.ts is the imported function, not the method it is called in, nor other.ts's.
    assert.equal(await first({ name: 'add', path: 'src/cart.ts', line: 6, column: 36 }), 'src/util/math.ts:1');
    assert.equal(await first({ name: 'add', path: 'src/cart.ts', line: 6, column: 2 }), 'src/cart.ts:6 Cart');
    assert.equal(await first({ name: 'add', path: 'src/other.ts', line: 2 }), 'src/other.ts:1');
    // `plus` → the alias's re-export → math.ts's add; `m.add` → the namespace's module.
    assert.equal(await first({ name: 'add', path: 'src/cart.ts', line: 9, column: 32 }), 'src/util/math.ts:1');
    assert.equal(await first({ name: 'validate', path: 'pkg/models.py', line: 3 }), 'pkg/models.py:4 User');
    assert.equal(await first({ name: 'New', path: 'cmd/main.go', line: 5 }), 'store/store.go:5');
    assert.equal(await first({ name: 'New', path: 'store/helpers.go', line: 3 }), 'store/store.go:5');
    // A parameter hides the imported `add`: the index holds no locals, the file is parsed for them at the question.
    const shadowing = FILES['src/cart.ts'].split('\n')[10];
    assert.equal(
      await first({ name: 'add', path: 'src/cart.ts', line: 11, column: shadowing.lastIndexOf('add') }),
      'src/cart.ts:11 shadow',
    );
    const parameter = await callTool<{ definitions: Array<{ kind: string; signature: string }> }>(client, 'locate_symbol', {
      name: 'add',
      path: 'src/cart.ts',
      line: 11,
      column: shadowing.lastIndexOf('add'),
    });
    assert.equal(parameter.body.definitions[0].kind, 'variable');
    assert.ok(parameter.body.definitions.length > 1, 'the definitions of the name follow');
    assert.equal(parameter.body.definitions[0].signature, shadowing);
    await expectToolError(client, 'locate_symbol', { name: 'add', path: 'src/cart.ts' }, 'invalid_input', 'line');
  });

  it('finds the references of a parameter at its declaration or a use, in its file', async () => {
    // `function shadow(add: number) { return add; }`: the parameter hides every `add` of the index.
    const line = FILES['src/cart.ts'].split('\n')[10];
    for (const column of [line.indexOf('add'), line.lastIndexOf('add')]) {
      const found = await callTool<
        Omit<Refs, 'definitions'> & { definitions: Array<{ name: string; kind: string; line: number; container: string | null }> }
      >(client, 'find_references', {
        path: 'src/cart.ts',
        line: 11,
        column,
      });
      assert.equal(found.isError, false, JSON.stringify(found.body));
      assert.deepEqual(
        found.body.definitions.map((d) => [d.name, d.kind, d.line, d.container]),
        [['add', 'variable', 11, 'shadow']],
      );
      assert.deepEqual(
        found.body.references.map((r) => [r.path, r.line, r.column, r.kind, r.enclosing]),
        [['src/cart.ts', 11, line.lastIndexOf('add'), 'read', 'shadow']],
      );
    }
    // A position with neither a definition nor a local: a clear error.
    const none = await expectToolError(client, 'find_references', { path: 'src/cart.ts', line: 11, column: 0 }, 'not_found');
    assert.match(none.message, /no parameter or local variable/);
  });

  it('lists every use of a name nothing in the workspace defines', async () => {
    const found = await callTool<Refs>(client, 'find_references', { name: 'Number' });
    const { definitions, references, total, truncated } = found.body;
    assert.equal(found.body.freshness.length, 1);
    assert.deepEqual({ definitions, references, total, truncated }, { definitions: [], references: [], total: 0, truncated: false });
    const print = await callTool<Refs>(client, 'find_references', { name: 'u' });
    assert.deepEqual(sites(print.body), [], 'a local variable is no reference');
  });

  it('follows an edit of a declared type: what was kept of the index before it is not used after', async () => {
    const at = (path: string, line: number, column: number) => callTool<Refs>(client, 'find_references', { path, line, column });
    const columns = (body: Refs) => body.references.map((r) => `${r.path}:${r.line}:${r.column}`);
    assert.deepEqual(columns((await at('src/garage.ts', 1, 22)).body), ['src/garage.ts:7:38']);
    // Parts.engine becomes a Motor and Parts.motor an Engine: the same accesses now bind the other way.
    const file = join(workspace, 'src/garage.ts');
    const before = readFileSync(file, 'utf8');
    writeFileSync(file, before.replace('{ engine: Engine; motor: Motor }', '{ engine: Motor; motor: Engine }'));
    const job = await client.callTool({ name: 'sync_repo', arguments: {} }, undefined, { onprogress: () => undefined });
    assert.equal((job.structuredContent as { status: string }).status, 'completed', JSON.stringify(job.structuredContent));
    assert.deepEqual(columns((await at('src/garage.ts', 1, 22)).body), ['src/garage.ts:7:65']);
    assert.deepEqual(columns((await at('src/garage.ts', 2, 21)).body), ['src/garage.ts:7:38', 'src/garage.ts:7:87']);
  });

  it('follows an edit: a new call appears after sync_repo', async () => {
    writeFileSync(join(workspace, 'src/other.ts'), ['export function add() { return 0; }', 'add();', 'add();'].join('\n'));
    const job = await client.callTool({ name: 'sync_repo', arguments: {} }, undefined, { onprogress: () => undefined });
    assert.equal((job.structuredContent as { status: string }).status, 'completed', JSON.stringify(job.structuredContent));
    const other = await callTool<Refs>(client, 'find_references', { path: 'src/other.ts', line: 1 });
    assert.deepEqual(sites(other.body), ['src/other.ts:2 call', 'src/other.ts:3 call']);
  });

  it('answers get_symbol_hierarchy: containment, what a class extends and implements, its subtypes', async () => {
    type Def = { path: string; name: string; container: string | null };
    type Hierarchy = { symbol: Def | null; parents: Def[]; children: Def[]; extends: string[]; implements: string[]; subtypes: Def[] };
    const premium = await callTool<Hierarchy>(client, 'get_symbol_hierarchy', { name: 'Premium' });
    assert.equal(premium.isError, false, JSON.stringify(premium.body));
    assert.deepEqual(
      [premium.body.extends, premium.body.implements, premium.body.children.map((c) => c.name)],
      [['Cart'], ['Priced'], ['price']],
    );
    const cart = await callTool<Hierarchy>(client, 'get_symbol_hierarchy', { name: 'Cart' });
    assert.deepEqual(
      [cart.body.children.map((c) => c.name), cart.body.subtypes.map((c) => `${c.path} ${c.name}`)],
      [['total', 'add'], ['src/premium.ts Premium']],
    );
    const method = await callTool<Hierarchy>(client, 'get_symbol_hierarchy', { name: 'Priced.price' });
    assert.deepEqual(
      method.body.parents.map((p) => p.name),
      ['Priced'],
    );
    const none = await callTool<Hierarchy>(client, 'get_symbol_hierarchy', { name: 'NoSuchThing' });
    assert.equal(none.body.symbol, null);
  });

  it('answers find_related_symbols and get_code_context from the same neighbourhood', async () => {
    type Def = { path: string; name: string; line: number; container: string | null };
    const related = await callTool<{ symbol: Def; same_container: Def[]; callers: Def[]; callees: Def[]; similar_names: Def[] }>(
      client,
      'find_related_symbols',
      { name: 'twice' },
    );
    assert.equal(related.isError, false, JSON.stringify(related.body));
    const brief = (defs: Def[]) => defs.map((d) => `${d.path}:${d.line} ${d.container ? `${d.container}.` : ''}${d.name}`);
    assert.deepEqual(brief(related.body.callees), ['src/util/math.ts:1 add']);
    assert.deepEqual(brief(related.body.callers), ['src/cart.ts:9 Wallet.add']);
    assert.deepEqual(brief(related.body.same_container), ['src/util/math.ts:1 add']);

    type Context = {
      symbol: Def;
      definition: string;
      outline: Array<{ name: string }>;
      imports: string[];
      related: Def[];
      estimated_tokens: number;
      truncated: boolean;
    };
    const context = await callTool<Context>(client, 'get_code_context', { name: 'Wallet.add' });
    assert.equal(context.isError, false, JSON.stringify(context.body));
    assert.equal(context.body.definition, '  add(coins: number) { return m.add(coins, 1) + plus(1, 2) + twice(coins); }');
    assert.deepEqual(context.body.imports, ['./util/math', './util']);
    assert.deepEqual(
      context.body.outline.map((n) => n.name),
      ['Cart', 'Wallet', 'shadow'],
    );
    assert.ok(brief(context.body.related).includes('src/util/math.ts:2 twice'), JSON.stringify(context.body.related));
    assert.equal(context.body.truncated, false);
    const byQuery = await callTool<Context>(client, 'get_code_context', { query: 'how does checkout work?' });
    assert.equal(byQuery.body.symbol.name, 'checkout');
    // max_tokens bounds the whole answer in real tokens (at most 10 % over); below 200 it is refused: freshness and the
    // symbol alone take ~106 tokens here.
    await expectToolError(client, 'get_code_context', { name: 'Wallet.add', max_tokens: 100 }, 'invalid_input', 'max_tokens');
    const tight = await callTool<Context>(client, 'get_code_context', { name: 'Wallet.add', max_tokens: 200 });
    assert.ok(tight.body.estimated_tokens <= 220, String(tight.body.estimated_tokens));
    assert.ok(tight.body.definition.length > 0 && context.body.definition.startsWith(tight.body.definition), tight.body.definition);
    await expectToolError(client, 'get_code_context', {}, 'invalid_input', 'name');
  });

  it('answers search_dependencies with depth, direction, tests left out on request, cycles, and Go packages', async () => {
    type Deps = {
      file_path: string;
      dependents: Array<{ path: string; depth: number }>;
      dependencies: Array<{ path: string; depth: number }>;
      cycles: string[][];
    };
    const brief = (edges: Array<{ path: string; depth: number }>) => edges.map((e) => `${e.depth} ${e.path}`).sort();
    const cycle = await callTool<Deps>(client, 'search_dependencies', { file_path: 'src/a.ts' });
    assert.equal(cycle.isError, false, JSON.stringify(cycle.body));
    assert.deepEqual(
      [brief(cycle.body.dependencies), brief(cycle.body.dependents), cycle.body.cycles],
      [['1 src/b.ts'], ['1 src/b.ts'], [['src/a.ts', 'src/b.ts']]],
    );
    const math = await callTool<Deps>(client, 'search_dependencies', {
      file_path: './src/util/math.ts',
      direction: 'dependents',
      depth: 2,
    });
    assert.deepEqual(brief(math.body.dependents), [
      '1 src/cart.ts',
      '1 src/util/index.ts',
      '2 src/cart.test.ts',
      '2 src/checkout.ts',
      '2 src/premium.ts',
    ]);
    assert.deepEqual(math.body.dependencies, []);
    const noTests = await callTool<Deps>(client, 'search_dependencies', {
      file_path: 'src/util/math.ts',
      direction: 'dependents',
      depth: 2,
      include_tests: false,
    });
    assert.ok(!brief(noTests.body.dependents).includes('2 src/cart.test.ts'));
    const go = await callTool<Deps>(client, 'search_dependencies', { file_path: 'cmd/main.go' });
    assert.deepEqual(brief(go.body.dependencies), ['1 store/']);
    const store = await callTool<Deps>(client, 'search_dependencies', { file_path: 'store/helpers.go', direction: 'dependents' });
    assert.deepEqual(brief(store.body.dependents), ['1 cmd/main.go']);
    await expectToolError(client, 'search_dependencies', { file_path: 'src/missing.ts' }, 'not_found');
    await expectToolError(client, 'search_dependencies', { file_path: 'src/a.ts', depth: 6 }, 'invalid_input', 'depth');
  });

  it('answers analyze_change_impact for files and for symbols, with the tests it reaches and a risk level', async () => {
    type Impact = {
      dependents: Array<{ path: string; depth: number }>;
      affected_tests: string[];
      risk: { level: string; summary: string; dependents_count: number };
    };
    const files = await callTool<Impact>(client, 'analyze_change_impact', { files: ['src/util/math.ts'] });
    assert.equal(files.isError, false, JSON.stringify(files.body));
    assert.deepEqual(
      files.body.dependents.map((d) => `${d.depth} ${d.path}`),
      ['1 src/cart.ts', '1 src/util/index.ts', '2 src/cart.test.ts', '2 src/checkout.ts', '2 src/premium.ts'],
    );
    assert.deepEqual(files.body.affected_tests, ['src/cart.test.ts']);
    assert.equal(files.body.risk.level, 'medium');
    assert.match(files.body.risk.summary, /^5 files depend on the change \(2 directly/);
    const symbol = await callTool<Impact>(client, 'analyze_change_impact', { symbols: ['Cart.add'] });
    assert.ok(
      symbol.body.dependents.some((d) => d.path === 'src/checkout.ts' && d.depth === 1),
      JSON.stringify(symbol.body),
    );
    await expectToolError(client, 'analyze_change_impact', {}, 'invalid_input', 'files');
  });

  it('answers validate_implementation_spec with errors and warnings', async () => {
    type Finding = { kind: string; target: string };
    const checked = await callTool<{ valid: boolean; errors: Finding[]; warnings: Finding[] }>(client, 'validate_implementation_spec', {
      files_to_create: ['src/cart.ts', 'lib/fresh.ts'],
      files_to_modify: ['src/nope.ts', 'src/util/math.ts', '../outside.ts'],
      symbols: ['Cart', 'Brand'],
    });
    assert.equal(checked.isError, false, JSON.stringify(checked.body));
    const brief = (fs: Finding[]) => fs.map((f) => `${f.kind} ${f.target}`).sort();
    assert.deepEqual(brief(checked.body.errors), [
      'file_exists src/cart.ts',
      'file_missing ../outside.ts',
      'file_missing src/nope.ts',
      'invalid_path ../outside.ts',
      'symbol_exists Cart',
    ]);
    assert.deepEqual(brief(checked.body.warnings), ['new_directory lib/fresh.ts']);
    assert.equal(checked.body.valid, false);
    const fine = await callTool<{ valid: boolean }>(client, 'validate_implementation_spec', {
      files_to_create: ['src/fresh.ts'],
      symbols: ['Brand'],
    });
    assert.equal(fine.body.valid, true);
  });

  it('lists the most recently indexed files first', async () => {
    const recent = await callTool<{ files: Array<{ repo: string; path: string; language: string | null; indexed_at: string }> }>(
      client,
      'list_recent_files',
      { limit: 2 },
    );
    assert.equal(recent.isError, false, JSON.stringify(recent.body));
    assert.equal(recent.body.files.length, 2);
    // The sync test above re-indexed other.ts last.
    assert.deepEqual(
      [recent.body.files[0].repo, recent.body.files[0].path, recent.body.files[0].language],
      ['shop', 'src/other.ts', 'typescript'],
    );
    assert.ok(Date.parse(recent.body.files[0].indexed_at) >= Date.parse(recent.body.files[1].indexed_at));
  });

  it('finds top-level definitions of a Go package or a Python module by qualified name, and tells embedding apart', async () => {
    type Found = { definitions: Array<{ path: string; name: string; line: number }> };
    const brief = (found: { body: Found }) => found.body.definitions.map((d) => `${d.path}:${d.line} ${d.name}`);
    assert.deepEqual(brief(await callTool<Found>(client, 'locate_symbol', { name: 'store.New' })), ['store/store.go:5 New']);
    assert.deepEqual(brief(await callTool<Found>(client, 'locate_symbol', { name: 'models.User' })), ['pkg/models.py:1 User']);
    assert.deepEqual(brief(await callTool<Found>(client, 'locate_symbol', { name: 'pkg.models.User' })), ['pkg/models.py:1 User']);
    assert.deepEqual(brief(await callTool<Found>(client, 'locate_symbol', { name: 'cart.New' })), []);
    type Hierarchy = { extends: string[]; embeds: string[]; subtypes: Array<{ name: string }>; truncated: boolean };
    const cache = await callTool<Hierarchy>(client, 'get_symbol_hierarchy', { name: 'Cache' });
    assert.deepEqual([cache.body.extends, cache.body.embeds, cache.body.truncated], [[], ['Store'], false]);
    const store = await callTool<Hierarchy>(client, 'get_symbol_hierarchy', { name: 'Store' });
    assert.deepEqual(
      store.body.subtypes.map((t) => t.name),
      ['Cache'],
    );
  });

  it('bounds an outline and says why a file has none', async () => {
    type Outline = {
      symbols: Array<{ name: string; children: unknown[] }>;
      symbol_count: number;
      truncated: boolean;
      skipped: string | null;
    };
    const cut = await callTool<Outline>(client, 'get_file_outline', { path: 'src/cart.ts', limit: 2 });
    assert.equal(cut.isError, false, JSON.stringify(cut.body));
    assert.deepEqual(
      [cut.body.symbols.map((n) => n.name), cut.body.symbol_count, cut.body.truncated, cut.body.skipped],
      [['Cart'], 6, true, null],
    );
    const readme = await callTool<Outline>(client, 'get_file_outline', { path: 'README.md' });
    assert.deepEqual([readme.body.symbols, readme.body.skipped], [[], 'unsupported_language']);
  });

  it('answers over several repositories and over a project', async () => {
    const other = join(base, 'tools');
    writeTree(other, TOOLS);
    git(other, 'init', '-q', '--initial-branch=main');
    git(other, 'add', '-A');
    git(other, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init');
    const job = await client.callTool({ name: 'index_repository', arguments: { repository: 'tools', localPath: other } }, undefined, {
      onprogress: () => undefined,
    });
    assert.equal((job.structuredContent as { status: string }).status, 'completed', JSON.stringify(job.structuredContent));
    type Found = { freshness: Array<{ repo: string }>; definitions: Array<{ repo: string; path: string }> };
    const both = await callTool<Found>(client, 'locate_symbol', { name: 'add', kind: 'function', repos: ['shop', 'tools'] });
    assert.equal(both.isError, false, JSON.stringify(both.body));
    assert.deepEqual(both.body.definitions.map((d) => `${d.repo} ${d.path}`).sort(), [
      'shop src/other.ts',
      'shop src/util/math.ts',
      'tools lib/add.ts',
    ]);
    assert.deepEqual(both.body.freshness.map((f) => f.repo).sort(), ['shop', 'tools']);
    const project = await callTool<{ project: { id: string } }>(client, 'create_project', {
      name: 'only-tools',
      repository_ids: ['tools'],
    });
    assert.equal(project.isError, false, JSON.stringify(project.body));
    type Refs = { definitions: Array<{ repo: string }>; references: Array<{ repo: string; path: string; line: number }> };
    const refs = await callTool<Refs>(client, 'find_references', { name: 'add', project: 'ONLY-TOOLS' });
    assert.equal(refs.isError, false, JSON.stringify(refs.body));
    assert.deepEqual(
      refs.body.references.map((r) => `${r.repo} ${r.path}:${r.line}`),
      ['tools lib/add.ts:2'],
    );
    // A test's definition comes after the others', whatever its path.
    const setup = await callTool<Found>(client, 'locate_symbol', { name: 'setup', repo: 'tools' });
    assert.deepEqual(
      setup.body.definitions.map((d) => d.path),
      ['lib/aspect.ts', 'lib/setup.ts', 'lib/add.test.ts'],
    );
    const unknown = await expectToolError(client, 'locate_symbol', { name: 'add', repos: ['shop', 'nope'] }, 'not_found');
    assert.match(unknown.message, /"nope"/);
    await expectToolError(client, 'find_references', { name: 'add', project: 'no-such-project' }, 'not_found');
    await expectToolError(client, 'locate_symbol', { name: 'add', repo: 'shop', repos: ['tools'] }, 'invalid_input', 'repo');
  });

  it('answers bad input clearly', async () => {
    // Numbers are told their documented maximum, not JavaScript's.
    const huge = await expectToolError(client, 'locate_symbol', { name: 'add', path: 'src/cart.ts', line: 1e308 }, 'invalid_input', 'line');
    assert.match(JSON.stringify(huge.details), /at most 10000000/);
    await expectToolError(client, 'search_dependencies', { file_path: 'src/a.ts', repository: 'shop', workspace: '/x' }, 'invalid_input');
    await expectToolError(client, 'find_references', {}, 'invalid_input', 'name');
    await expectToolError(client, 'find_references', { path: 'src/cart.ts' }, 'invalid_input');
    await expectToolError(client, 'find_references', { path: 'src/cart.ts', line: 2 }, 'not_found');
    await expectToolError(client, 'find_references', { name: 'add', limit: 0 }, 'invalid_input', 'limit');
    await expectToolError(client, 'find_references', { name: 'add', repo: 'nope' }, 'not_found');
  });
});
