import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { extract } from './extract.js';
import { KEY, type ExtractedSymbol, type Extraction } from './extraction.js';
import { localDefinitionAt } from './locals.js';
import { Grammars, type Grammar } from './grammars.js';
import { parsedLanguages } from './languages.js';
import { ParsePool } from './pool.js';

const grammars = new Grammars();

async function grammar(language: string): Promise<Grammar> {
  const loaded = await grammars.get(language);
  assert.ok(loaded && !('error' in loaded), `${language}: ${JSON.stringify(loaded)}`);
  return loaded;
}

const brief = (symbols: ExtractedSymbol[]) => symbols.map((s) => [s.name, s.kind, s.line, s.container]);

/** A file with a top-level name, a parameter shadowed in a block, members of its name and a hoisted `var` (locals). */
const LOCALS_SOURCE = [
  'let url = "top";', // 1: the file's own, no local
  'export function get(url: string, headers?: object) {', // 2
  '  const options = { url, headers };', // 3
  '  if (options) {', // 4
  '    const url = "inner";', // 5
  '    return { url };', // 6
  '  }', // 7
  '  return this.url + options.url + later;', // 8
  '  var later = 1;', // 9
  '}', // 10
  'send({ url });', // 11
].join('\n');

describe('parsing (web-tree-sitter, real grammars)', () => {
  it('has a folder, a grammar and a query for every parsed language', async () => {
    assert.deepEqual([...parsedLanguages().keys()].sort(), [
      'c',
      'c_sharp',
      'cpp',
      'go',
      'java',
      'javascript',
      'php',
      'python',
      'ruby',
      'rust',
      'tsx',
      'typescript',
    ]);
    for (const name of parsedLanguages().keys()) await grammar(name);
  });

  it('finds TypeScript definitions with kinds, containers and signatures, and its imports', async () => {
    const source = [
      "import { readFile } from 'node:fs';",
      "export * from './other';",
      'export interface Store { get(key: string): string; size: number }',
      'export type Id = string;',
      'enum Colour { Red }',
      'export abstract class Base {}',
      'export class Router extends Base {',
      '  private routes = new Map<string, string>();',
      '  use(path: string, handler: () => void): this {',
      '    const local = 1;',
      '    return this;',
      '  }',
      '}',
      'export function createServer(port: number) {',
      '  function inner() {}',
      '  return inner;',
      '}',
      'export const handler = async (req: Request) => req;',
      'export const VERSION = "1";',
      'namespace Legacy { export function old() {} }',
    ].join('\n');
    const result = extract(await grammar('typescript'), source, 1_000);
    assert.deepEqual(brief(result.symbols), [
      ['Store', 'interface', 3, null],
      ['get', 'method', 3, 'Store'],
      ['size', 'property', 3, 'Store'],
      ['Id', 'type', 4, null],
      ['Colour', 'enum', 5, null],
      ['Base', 'class', 6, null],
      ['Router', 'class', 7, null],
      ['routes', 'property', 8, 'Router'],
      ['use', 'method', 9, 'Router'],
      ['createServer', 'function', 14, null],
      ['inner', 'function', 15, 'createServer'],
      ['handler', 'function', 18, null],
      ['VERSION', 'constant', 19, null],
      ['Legacy', 'module', 20, null],
      ['old', 'function', 20, 'Legacy'],
    ]);
    const use = result.symbols.find((s) => s.name === 'use')!;
    assert.equal(use.signature, 'use(path: string, handler: () => void): this');
    assert.equal(use.endLine, 12);
    assert.equal(result.symbols[use.parent].name, 'Router');
    assert.equal(result.symbols.find((s) => s.name === 'createServer')!.signature, 'function createServer(port: number)');
    assert.deepEqual(result.imports, [
      { module: 'node:fs', line: 1, reexport: false, bindings: [{ name: 'readFile', alias: 'readFile' }] },
      { module: './other', line: 2, reexport: true, bindings: [{ name: '*', alias: '' }] },
    ]);
    assert.equal(result.syntaxErrors, false);
  });

  it('finds JavaScript definitions and require() imports', async () => {
    const source = [
      "const path = require('path');",
      'class Cache { get(k) { return k; } #secret = 1; }',
      'function* ids() {}',
      'module.exports = { Cache };',
    ].join('\n');
    const result = extract(await grammar('javascript'), source, 1_000);
    assert.deepEqual(brief(result.symbols), [
      ['path', 'constant', 1, null],
      ['Cache', 'class', 2, null],
      ['get', 'method', 2, 'Cache'],
      ['#secret', 'field', 2, 'Cache'],
      ['ids', 'function', 3, null],
    ]);
    assert.deepEqual(result.imports, [{ module: 'path', line: 1, reexport: false, bindings: [{ name: '*', alias: 'path' }] }]);
  });

  it('finds Python classes, methods, module variables and imports', async () => {
    const source = [
      'import os, sys as system',
      'from .models import User as U',
      'from typing import Optional',
      'LIMIT = 10',
      'class UserService(Base):',
      '    table = "users"',
      '    def create(self, name: str) -> "User":',
      '        def helper():',
      '            pass',
      '        return name',
      'async def main():',
      '    pass',
    ].join('\n');
    const result = extract(await grammar('python'), source, 1_000);
    assert.deepEqual(brief(result.symbols), [
      ['LIMIT', 'variable', 4, null],
      ['UserService', 'class', 5, null],
      ['table', 'field', 6, 'UserService'],
      ['create', 'method', 7, 'UserService'],
      ['helper', 'function', 8, 'create'],
      ['main', 'function', 11, null],
    ]);
    assert.equal(result.symbols[3].signature, 'def create(self, name: str) -> "User"');
    assert.deepEqual(
      result.imports.map((i) => i.module),
      ['os', 'sys', '.models', 'typing'],
    );
  });

  it('finds Go functions, methods with their receiver type, structs, interfaces and imports', async () => {
    const source = [
      'package server',
      'import (',
      '  "net/http"',
      '  log "github.com/sirupsen/logrus"',
      ')',
      'const Port = 8080',
      'type Server struct { addr string }',
      'type Handler interface { Serve(w http.ResponseWriter) }',
      'type ID string',
      'func (s *Server) Start() error { return nil }',
      'func New(addr string) *Server { return &Server{addr: addr} }',
    ].join('\n');
    const result = extract(await grammar('go'), source, 1_000);
    assert.deepEqual(brief(result.symbols), [
      ['Port', 'constant', 6, null],
      ['Server', 'struct', 7, null],
      ['addr', 'field', 7, 'Server'],
      ['Handler', 'interface', 8, null],
      ['Serve', 'method', 8, 'Handler'],
      ['ID', 'type', 9, null],
      ['Start', 'method', 10, 'Server'],
      ['New', 'function', 11, null],
    ]);
    assert.deepEqual(
      result.imports.map((i) => i.module),
      ['net/http', 'github.com/sirupsen/logrus'],
    );
  });

  const uses = (result: Extraction) =>
    result.references.map((r) => `${r.qualifier !== null ? `${r.qualifier}.` : ''}${r.name}:${r.kind}@${r.line}`);

  it('finds TypeScript references with kinds and enclosing definitions, not the names locals hide', async () => {
    const source = [
      "import { readFile as rf, stat } from 'node:fs';",
      "import * as path from 'node:path';",
      "export { x as y } from './z';",
      'export class Router extends Base {',
      '  use(p: string, h: Handler): this {',
      '    this.use(path.join(p), stat);',
      '    return rf(p);',
      '  }',
      '}',
      'function createServer(port: number) { const Router = 1; return Router + port; }',
      'new Router().use("/", createServer);',
      'let count = 0; count = 2;',
    ].join('\n');
    const result = extract(await grammar('typescript'), source, 1_000);
    assert.deepEqual(result.imports[0].bindings, [
      { name: 'readFile', alias: 'rf' },
      { name: 'stat', alias: 'stat' },
    ]);
    assert.deepEqual(result.imports[1].bindings, [{ name: '*', alias: 'path' }]);
    assert.deepEqual(result.imports[2], { module: './z', line: 3, reexport: true, bindings: [{ name: 'x', alias: 'y' }] });
    assert.deepEqual(uses(result), [
      'readFile:import@1',
      'rf:import@1', // the local name of an import is a use too, as the language service reads it
      'stat:import@1',
      'x:import@3',
      'y:import@3',
      'Base:read@4',
      'Handler:type@5',
      'this.use:call@6',
      'path:read@6',
      'path.join:call@6',
      'stat:read@6',
      'rf:call@7',
      // The local `Router` of createServer hides the class there: no reference on line 10.
      'Router:call@11',
      '.use:call@11',
      'createServer:read@11',
      'count:write@12',
    ]);
    const use = result.references.find((r) => r.name === 'rf' && r.kind === 'call')!;
    assert.equal(result.symbols[use.enclosing].name, 'use');
  });

  it("reads a bundle's export list and a destructuring of thousands of names in time linear in them", async () => {
    // Each name's match once waited for what follows the list (the `from`, the value or type destructured): the square
    // of the list's length or worse (5,000 exported names took ~40 s; 1,000 destructured names, 3.5–6.6 s). Now about
    // 1.3–2.5 s on 2 busy cores: the budget here (BUDGET_MS) is what a square would blow, not the product's 2 s, which
    // a loaded CI machine's parallel suites once pushed this file past (2.5 s).
    const BUDGET_MS = 10_000;
    const names = Array.from({ length: 5_000 }, (_, i) => `n${i}`);
    const source = [
      `import { ${names.map((n) => `${n} as i${n}`).join(', ')} } from './lib';`,
      `export { ${names.map((n) => `${n} as e${n}`).join(', ')} } from './lib';`,
      `export { ${names.map((n) => `i${n}`).join(', ')} };`,
      `const { ${names.join(', ')} } = require('./cjs');`,
      `const { ${names.map((n) => `${n}: d${n}`).join(', ')} } = this.opts;`,
    ].join('\n');
    const result = extract(await grammar('javascript'), source, BUDGET_MS);
    const [imported, reexported, required, ...passedOn] = result.imports;
    assert.deepEqual(imported, { module: './lib', line: 1, reexport: false, bindings: names.map((n) => ({ name: n, alias: `i${n}` })) });
    assert.deepEqual(reexported, { module: './lib', line: 2, reexport: true, bindings: names.map((n) => ({ name: n, alias: `e${n}` })) });
    assert.deepEqual(required, { module: './cjs', line: 4, reexport: false, bindings: names.map((n) => ({ name: n, alias: n })) });
    // The bare `export { … }` (no `from`) imports nothing itself: it passes on the names line 1 imported.
    assert.deepEqual(passedOn, [{ module: './lib', line: 1, reexport: true, bindings: names.map((n) => ({ name: n, alias: `i${n}` })) }]);
    // The keys of line 5 are members of what `this.opts` holds.
    assert.equal(result.references.filter((r) => r.line === 5 && r.qualifier === KEY).length, names.length);
    // A TypeScript parameter's: members of its type.
    const typed = extract(await grammar('typescript'), `function f({ ${names.join(', ')} }: Opts) { return n0; }`, BUDGET_MS);
    assert.equal(typed.references.filter((r) => r.qualifier === KEY && r.receiver === 'Opts').length, names.length);
  });

  it('binds a destructuring to its own value: `require` names are imports, any other value is no import', async () => {
    const source = ["const { a, b: c } = require('m');", 'const { d } = other;', "const { e } = require(name), { f } = require('n');"].join('\n');
    const result = extract(await grammar('javascript'), source, 1_000);
    assert.deepEqual(result.imports, [
      { module: 'm', line: 1, reexport: false, bindings: [{ name: 'a', alias: 'a' }] },
      { module: 'n', line: 3, reexport: false, bindings: [{ name: 'f', alias: 'f' }] },
    ]);
  });

  it('gives a member access the type of its object where the file says it', async () => {
    const receivers = (extraction: Extraction) =>
      extraction.references.filter((r) => r.qualifier).map((r) => `${r.qualifier}.${r.name}:${r.receiver ?? '?'}`);
    const typescript = extract(
      await grammar('typescript'),
      [
        'const top = new Top();',
        'class A extends Base {',
        '  private cache: Cache | undefined; other = new ns.Other();',
        '  constructor(private store: Store<T>, dep: Dep) { super(); this.dep = dep; }',
        '  run(x: Foo, y?: Bar, list: Foo[]) {',
        '    const z = new Baz(); x.a(); y.b(); z.c(); list.d(); unknown.e();',
        '    this.store.f(); this.cache.g(); this.dep.h(); this.other.i(); super.j(); top.k();',
        '    { const x = new Inner(); x.l(); }',
        '  }',
        '}',
      ].join('\n'),
      1_000,
    );
    // Accesses through `this` itself are left to the query (the class around the line); `ns.Other` is a namespace's.
    assert.deepEqual(
      receivers(typescript).filter((r) => r.split('.').length > 2 || !r.startsWith('this.')),
      [
        'ns.Other:?',
        'x.a:Foo',
        'y.b:Bar',
        'z.c:Baz',
        'list.d:?',
        'unknown.e:?',
        'this.store.f:Store',
        'this.cache.g:Cache',
        'this.dep.h:Dep',
        'this.other.i:Other',
        'super.j:Base',
        'top.k:Top',
        'x.l:Inner',
      ],
    );
    const python = extract(
      await grammar('python'),
      [
        'class A(Base):',
        '    field: Foo',
        '    def __init__(self, store: "Store", n: Optional[Num] = None):',
        '        super().__init__()',
        '        self.store = store',
        '        self.made = Made(1)',
        '    def run(self, a: Alpha):',
        '        b = pkg.Beta()',
        '        c = helper()',
        '        a.m1(); b.m2(); c.m3(); n.m4(); self.store.m5(); self.made.m6(); self.field.m7()',
      ].join('\n'),
      1_000,
    );
    assert.deepEqual(
      receivers(python).filter((r) => r.split('.').length > 2 || !r.startsWith('self.')),
      [
        'super.__init__:Base',
        'pkg.Beta:?',
        'a.m1:Alpha',
        'b.m2:Beta',
        'c.m3:helper()',
        'n.m4:?',
        'self.store.m5:Store',
        'self.made.m6:Made',
        'self.field.m7:Foo',
      ],
    );
    const go = extract(
      await grammar('go'),
      ['package p', 'func (s *Server) Run(c *Conn, n int) { v := &Thing{}; var w pkg.Wid; s.A(); c.B(); v.C(); w.D(); n.E() }'].join('\n'),
      1_000,
    );
    assert.deepEqual(receivers(go), ['pkg.Wid:?', 's.A:Server', 'c.B:Conn', 'v.C:Thing', 'w.D:Wid', 'n.E:int']);
    // An untyped declaration hides an outer typed one; within a scope the last declaration before the use counts; a
    // declared field type is not lost to an assignment from an untyped name; a signature's parameters are its own.
    const scoping = extract(
      await grammar('typescript'),
      [
        'interface Repo { save(user: User): void }',
        'class A { private store: Store; constructor(s) { this.store = s; } run() { this.store.f(); } }',
        'function g(user: Admin, list) { list.map((user) => user.a()); user.b(); }',
        'function h(user) { user.c(); }',
      ].join('\n'),
      1_000,
    );
    assert.deepEqual(
      receivers(scoping).filter((r) => r.split('.').length > 2 || !r.startsWith('this.')),
      ['this.store.f:Store', 'list.map:?', 'user.a:?', 'user.b:Admin', 'user.c:?'],
    );
    const reassigned = extract(
      await grammar('python'),
      ['def f():', '    x = Foo()', '    x.a()', '    x = make()', '    x.b()'].join('\n'),
      1_000,
    );
    assert.deepEqual(receivers(reassigned), ['x.a:Foo', 'x.b:make()']);
    // A key of an object literal whose type is written around it: a member of that type.
    const keys = (extraction: Extraction) =>
      extraction.references.filter((r) => r.qualifier === '{}').map((r) => `${r.name}:${r.receiver ?? '?'}`);
    const literals = extract(
      await grammar('typescript'),
      'const a: Opts = { port: 1, host }; const b = { x: 1 } satisfies P; const c = { y: 2 } as Q; const d = { z: 3 }; const e: Readonly<R> = { w }; const f: Pick<S<T>, "v"> = { v };',
      1_000,
    );
    assert.deepEqual(keys(literals), ['port:Opts', 'host:Opts', 'x:P', 'y:Q', 'z:?', 'w:R', 'v:S']);
    const composite = extract(await grammar('go'), 'package p\nfunc f() { s := Server{Addr: "x"}; t := &pkg.T{Name: 1} }', 1_000);
    assert.deepEqual(keys(composite), ['Addr:Server', 'Name:T']);
  });

  it('types calls by the called name, elements by their collection, and anonymous types by their declaration', async () => {
    const receivers = (extraction: Extraction) =>
      extraction.references.filter((r) => r.qualifier !== null).map((r) => `${r.qualifier}.${r.name}:${r.receiver ?? '?'}`);
    const go = extract(
      await grammar('go'),
      [
        'package p',
        'func Parse(s string) (u *URL, err error) { return nil, nil }',
        'func First[T any](xs []T) T { return xs[0] }',
        'var tests = []Case{{in: "a"}}',
        'var anon = []struct{ in string }{{in: "b"}}',
        'func T() {',
        '\tu, err := Parse("x"); u.Host; Parse("y").Port()',
        '\tfor _, tt := range tests { tt.in }',
        '\tfor i, a := range anon { a.in }',
        '\tx := tests[0]; x.in',
        '\tp := url.Parse("z"); p.Path',
        '}',
      ].join('\n'),
      1_000,
    );
    // A function's declared result: the first of Go's (named) results; a type parameter is none; a field's type.
    assert.deepEqual(
      go.symbols.filter((s) => s.returns).map((s) => `${s.name}:${s.returns}`),
      ['Parse:URL', 'in:string'],
    );
    assert.deepEqual(receivers(go), [
      '{}.in:Case', // an element of `[]Case{…}`
      '{}.in:anon', // of an anonymous struct: the definition it is written in, its fields' container
      'u.Host:Parse()',
      '.Port:Parse()',
      'tt.in:Case',
      'a.in:anon',
      'x.in:Case',
      'url.Parse:?',
      'p.Path:Parse()',
    ]);
    // A struct literal's key is the field, not a use of a same-named name; a map literal's key is a value.
    const bare = extract(await grammar('go'), 'package p\nvar a = T{in: 1}\nvar b = map[K]int{in: 1}', 1_000);
    assert.deepEqual(
      bare.references.filter((r) => r.name === 'in').map((r) => `${r.qualifier ?? 'bare'}@${r.line}`),
      ['{}@2', 'bare@3', '{}@3'],
    );
    const typescript = extract(
      await grammar('typescript'),
      [
        'class A { m(): this { return this; } }',
        'function make(): A { return new A(); }',
        'function same<T>(x: T): T { return x; }',
        'function f(list: A[], opts: { a: string }, more: { b: number | null } | undefined) {',
        '  const x = make(); x.m(); make().m(); new A().m(); (y as A).m();',
        '  for (const z of list) z.m();',
        '  opts.a; more.b;',
        '}',
        // A result or a declared type without a name is the definition's own; a variable's declared type is stored too.
        'function sizing(): { unit: string } | null { return null; }',
        'const def: Keyword = { code() { return 1; } };',
      ].join('\n'),
      1_000,
    );
    assert.deepEqual(
      typescript.symbols.filter((s) => s.returns).map((s) => `${s.name}:${s.returns}`),
      ['m:this', 'make:A', 'a:string', 'b:number', 'sizing:sizing', 'unit:string', 'def:Keyword'],
    );
    // `{ b: number | null } | undefined`: a union inside the braces does not split the type.
    assert.deepEqual(receivers(typescript), ['x.m:make()', '.m:make()', '.m:A', '.m:A', 'z.m:A', 'opts.a:f', 'more.b:f']);
  });

  it('types member chains: members taken or called from a typed object, and fields of the class around', async () => {
    const receivers = (extraction: Extraction) =>
      extraction.references
        .filter((r) => r.qualifier !== null && r.qualifier !== 'this' && r.qualifier !== 'self')
        .map((r) => `${r.qualifier}.${r.name}:${r.receiver ?? '?'}`);
    const returns = (extraction: Extraction) => extraction.symbols.filter((s) => s.returns).map((s) => `${s.name}:${s.returns}`);
    const typescript = extract(
      await grammar('typescript'),
      [
        'class Ajv {',
        '  opts: Options;',
        '  async run(x: Foo) {',
        '    this.opts.code.optimize; this.handler?.path; x.a.b(); x.load().items; make().a.b;',
        '    const d = this._def; d.checks; const v = await this.get(); v.size; const w = x!; w.c;',
        '  }',
        '  async get(): Promise<Bag> { return null; }',
        '}',
      ].join('\n'),
      1_000,
    );
    assert.deepEqual(returns(typescript), ['opts:Options', 'get:Bag']);
    assert.deepEqual(receivers(typescript), [
      'this.opts.code:Options',
      'this.opts.code.optimize:Options.code',
      'this.handler.path:Ajv.handler',
      'x.a:Foo',
      'x.a.b:Foo.a',
      'x.load:Foo',
      '.items:Foo.load()',
      '.a:make()',
      '.b:make().a',
      'd.checks:Ajv._def',
      'v.size:Ajv.get()',
      'w.c:Foo',
    ]);
    const go = extract(
      await grammar('go'),
      [
        'package p',
        'type Server struct { conn *Conn; opts Options }',
        'func (s *Server) Run() { s.conn.Close(); c := s.conn; c.Write(); t := s.dial(); t.Read(); x := y.(*Thing); x.Do() }',
      ].join('\n'),
      1_000,
    );
    assert.deepEqual(returns(go), ['conn:Conn', 'opts:Options']);
    assert.deepEqual(receivers(go), [
      's.conn:Server',
      's.conn.Close:Server.conn',
      's.conn:Server',
      'c.Write:Server.conn',
      's.dial:Server',
      't.Read:Server.dial()',
      'x.Do:Thing',
    ]);
    const python = extract(
      await grammar('python'),
      [
        'class A:',
        '    conn: Conn',
        '    def load(self) -> Bag: ...',
        '    def run(self):',
        '        self.conn.send(); b = self.load(); b.size(); c = self.conn; c.close(); self.other.x()',
      ].join('\n'),
      1_000,
    );
    assert.deepEqual(returns(python), ['conn:Conn', 'load:Bag']);
    // A declared `this`, a destructured value, and the types a type alias stands for.
    const declared = extract(
      await grammar('typescript'),
      [
        'type Shape = Circle | (Square & Named<T>) | "none"; type Maybe<T> = T | Opt<T>;',
        'function compile(this: Ajv, x: Foo) { this.opts.a; this.run(); const { code, mode: m } = this.opts; const { b } = x; }',
      ].join('\n'),
      1_000,
    );
    assert.deepEqual(
      declared.symbols.filter((s) => s.aliases).map((s) => `${s.name}:${s.aliases!.join('|')}`),
      ['Shape:Circle|Square|Named', 'Maybe:Opt'],
    );
    assert.deepEqual(
      declared.references.filter((r) => r.qualifier !== null).map((r) => `${r.qualifier}.${r.name}:${r.receiver ?? '?'}`),
      ['this.opts:Ajv', 'this.opts.a:Ajv.opts', 'this.run:Ajv', '{}.code:Ajv.opts', '{}.mode:Ajv.opts', 'this.opts:Ajv', '{}.b:Foo'],
    );
    // The definition a file exports as its default.
    const defaults = await Promise.all(
      ['const def = {}; export default def;', 'export default class Ajv {}', 'export default function f() {}', 'export class A {}'].map(
        async (source) =>
          extract(await grammar('typescript'), source, 1_000)
            .symbols.filter((s) => s.defaultExport)
            .map((s) => s.name),
      ),
    );
    assert.deepEqual(defaults, [['def'], ['Ajv'], ['f'], []]);
    // Destructured names are the members they are taken from.
    const destructured = extract(
      await grammar('typescript'),
      'function f({ gen, opts: o }: Cxt, cxt: K) { gen.x(); o.y(); const { it, a: b } = cxt; it.z(); b.w(); }',
      1_000,
    );
    assert.deepEqual(
      destructured.references
        .filter((r) => r.qualifier !== null && r.qualifier !== '{}')
        .map((r) => `${r.qualifier}.${r.name}:${r.receiver ?? '?'}`),
      ['gen.x:Cxt.gen', 'o.y:Cxt.opts', 'it.z:K.it', 'b.w:K.a'],
    );
    assert.deepEqual(receivers(python), ['self.conn.send:Conn', 'b.size:A.load()', 'c.close:Conn', 'self.other.x:A.other']);
  });

  it('passes on what a bare `export { … }` names of its imports, as `export … from` would', async () => {
    const result = extract(
      await grammar('typescript'),
      [
        "import type { Task, TaskQueue as TQ } from './common';",
        "import def from './d';",
        "import * as ns from './n';",
        'const local = 1;',
        'export { Task, TQ as Queue, def, ns, local, Task as Job };',
      ].join('\n'),
      1_000,
    );
    assert.deepEqual(
      result.imports.filter((i) => i.reexport),
      [
        {
          module: './common',
          line: 1,
          reexport: true,
          bindings: [
            { name: 'Task', alias: 'Task' },
            { name: 'Task', alias: 'Job' },
            { name: 'TaskQueue', alias: 'Queue' },
          ],
        },
        { module: './d', line: 2, reexport: true, bindings: [{ name: 'default', alias: 'def' }] },
        { module: './n', line: 3, reexport: true, bindings: [{ name: '*', alias: 'ns' }] },
      ],
    );
    // The imports stay uses.
    assert.equal(result.imports.filter((i) => !i.reexport).length, 3);
  });

  it("types `this` in an object literal's method, a returned literal's keys, private fields, globals and defaults (TypeScript)", async () => {
    const typescript = extract(
      await grammar('typescript'),
      [
        'class Pool {',
        '  #queue: Queue;',
        '  size() { return this.#queue.size; }',
        '  get stats(): Stats {',
        '    const s = { get runs() { return this.count; }, reset() { this.count = 0; } };',
        '    return { runs: this.size(), total: 1 };',
        '  }',
        '  async load(): Promise<Stats> { return { total: 2 }; }',
        '}',
        'export const Api = make({ ping() { return this.pong(); } });',
        'export const ks = Object.keys(Api), top = (Math: Pool) => Math.size();',
        'export function pick(given?: Pool) { const p = given ?? new Pool(); return p.size(); }',
        'register({ run() { class K { m() { return this.k(); } } return this.go(); } });',
        'export const build = { make() { class L { n() { return this.l(); } } return L; } };',
        'function anyOf<T>(): T { return { key: 1 }; }',
      ].join('\n'),
      1_000,
    );
    assert.deepEqual(
      typescript.references.filter((r) => r.qualifier !== null).map((r) => `${r.line}:${r.qualifier}.${r.name}:${r.receiver ?? '?'}`),
      [
        // `#queue: Queue` types `this.#queue` (the class's own `this` is the binder's to read).
        '3:this.#queue:?',
        '3:this.#queue.size:Queue',
        // `this` in a literal's methods is the literal: of the definition around it, as its members' container.
        '5:this.count:stats',
        '5:this.count:stats',
        // A returned literal is of the declared result (`T` of `Promise<T>`).
        '6:{}.runs:Stats',
        '6:this.size:?',
        '6:{}.total:Stats',
        '8:{}.total:Stats',
        '10:this.pong:Api',
        // A global object's member is the global's (`globals`), unless a local has the name.
        '11:Object.keys:Object',
        '11:Math.size:Pool',
        // A default (`given ?? fallback`) is of the type of what it prefers.
        '12:p.size:Pool',
        // A class declared in a literal's method has its own `this`; a literal written in no definition has no type.
        '13:this.k:?',
        '13:this.go:?',
        '14:this.l:?',
        // A type parameter is no type of the index.
        '15:{}.key:?',
      ],
    );
  });

  it('finds Python and Go references through module and package qualifiers', async () => {
    const python = extract(
      await grammar('python'),
      [
        'import os.path',
        'from .models import User as U',
        'def create(name):',
        '    LIMIT = 3',
        '    return U(name, os.path.join(name), LIMIT, key=name)',
        'LIMIT = 10',
        'print(LIMIT)',
      ].join('\n'),
      1_000,
    );
    assert.deepEqual(python.imports[0].bindings, [{ name: '*', alias: 'os.path' }]);
    assert.deepEqual(python.imports[1].bindings, [{ name: 'User', alias: 'U' }]);
    assert.deepEqual(uses(python), [
      'User:import@2',
      'U:call@5',
      'os:read@5',
      'os.path:read@5',
      'os.path.join:call@5',
      'print:call@7',
      'LIMIT:read@7',
    ]);
    const go = extract(
      await grammar('go'),
      [
        'package server',
        'import (',
        '  "net/http"',
        '  log "github.com/sirupsen/logrus"',
        ')',
        'func (s *Server) Start(w http.ResponseWriter) { log.Info(s.addr); x := New(); x.Start(w) }',
      ].join('\n'),
      1_000,
    );
    assert.deepEqual(
      go.imports.map((i) => i.bindings),
      [[{ name: '*', alias: 'http' }], [{ name: '*', alias: 'log' }]],
    );
    assert.deepEqual(uses(go), [
      'Server:type@6',
      'http.ResponseWriter:type@6',
      'log:read@6',
      'log.Info:call@6',
      's.addr:read@6',
      'New:call@6',
      'x.Start:call@6',
    ]);
  });

  // One file per language: its definitions (name, kind, line, container) and some references it must see.
  const SAMPLES: Array<{ language: string; source: string[]; symbols: unknown[]; uses: string[]; imports: string[] }> = [
    {
      language: 'java',
      source: [
        'package com.shop;',
        'import com.shop.util.Money;',
        'public class Cart extends Base implements Priced {',
        '  private int total;',
        '  public int add(int price) { int x = price; return Money.round(x) + helper(total); }',
        '}',
      ],
      symbols: [
        ['Cart', 'class', 3, null],
        ['total', 'field', 4, 'Cart'],
        ['add', 'method', 5, 'Cart'],
      ],
      uses: ['Money:import@2', 'Money.round:call@5', 'helper:call@5', 'total:read@5'],
      imports: ['com.shop.util.Money'],
    },
    {
      language: 'rust',
      source: [
        'use crate::util::Money;',
        'pub struct Cart { total: u32 }',
        'impl Cart {',
        '    pub fn add(&mut self, price: u32) -> u32 { let x = price; self.total += Money::round(x); helper(x) }',
        '}',
        'trait Priced { fn price(&self) -> u32; }',
      ],
      symbols: [
        ['Cart', 'struct', 2, null],
        ['total', 'field', 2, 'Cart'],
        ['add', 'method', 4, 'Cart'],
        ['Priced', 'trait', 6, null],
        ['price', 'method', 6, 'Priced'],
      ],
      uses: ['self.total:read@4', 'Money.round:call@4', 'helper:call@4'],
      imports: ['crate::util::Money'],
    },
    {
      language: 'c_sharp',
      source: [
        'using Shop.Util;',
        'namespace Shop {',
        '  public class Cart : Base, IPriced {',
        '    public int Total { get; set; }',
        '    public int Add(int price) { var x = price; return Money.Round(x) + Helper(Total); }',
        '  }',
        '}',
      ],
      symbols: [
        ['Shop', 'module', 2, null],
        ['Cart', 'class', 3, 'Shop'],
        ['Total', 'property', 4, 'Cart'],
        ['Add', 'method', 5, 'Cart'],
      ],
      uses: ['Money.Round:call@5', 'Helper:call@5', 'Total:read@5'],
      imports: ['Shop.Util'],
    },
    {
      language: 'ruby',
      source: [
        "require_relative 'util/money'",
        'class Cart < Base',
        '  def add(price)',
        '    x = price',
        '    Money.round(x) + helper',
        '  end',
        'end',
      ],
      symbols: [
        ['Cart', 'class', 2, null],
        ['add', 'method', 3, 'Cart'],
      ],
      uses: ['Money.round:call@5', 'helper:read@5'],
      imports: ['util/money'],
    },
    {
      language: 'c',
      source: [
        '#include "util/money.h"',
        '#include <stdio.h>',
        'struct cart { int total; };',
        'int add(struct cart *c, int price) { int x = price; c->total += round_money(x); return x; }',
      ],
      symbols: [
        ['cart', 'struct', 3, null],
        ['total', 'field', 3, 'cart'],
        ['add', 'function', 4, null],
      ],
      uses: ['c.total:read@4', 'round_money:call@4'],
      imports: ['util/money.h', '<stdio.h>'],
    },
    {
      language: 'cpp',
      source: [
        '#include "money.hpp"',
        'namespace shop {',
        'class Cart : public Base {',
        '  int add(int price) { return money::round(price) + helper(total); }',
        '  int total;',
        '};',
        '}',
      ],
      symbols: [
        ['shop', 'module', 2, null],
        ['Cart', 'class', 3, 'shop'],
        ['add', 'method', 4, 'Cart'],
        ['total', 'field', 5, 'Cart'],
      ],
      uses: ['Base:type@3', 'money.round:call@4', 'helper:call@4', 'total:read@4'],
      imports: ['money.hpp'],
    },
    {
      language: 'php',
      source: [
        '<?php',
        'namespace Shop;',
        'use Shop\\Util\\Money;',
        'class Cart extends Base implements Priced {',
        '  private $total;',
        '  public function add($price) { return Money::round($price) + $this->helper($this->total); }',
        '}',
      ],
      symbols: [
        ['Shop', 'module', 2, null],
        ['Cart', 'class', 4, null],
        ['total', 'property', 5, 'Cart'],
        ['add', 'method', 6, 'Cart'],
      ],
      uses: ['Money:import@3', 'Money.round:call@6', '$this.helper:call@6', '$this.total:read@6'],
      imports: ['Shop\\Util\\Money'],
    },
  ];

  for (const sample of SAMPLES) {
    it(`finds ${sample.language} definitions, references and imports`, async () => {
      const result = extract(await grammar(sample.language), sample.source.join('\n'), 1_000);
      assert.deepEqual(brief(result.symbols), sample.symbols);
      const found = uses(result);
      for (const use of sample.uses) assert.ok(found.includes(use), `${use} in ${JSON.stringify(found)}`);
      assert.ok(!found.some((u) => /^(x|price):/.test(u)), `parameters and locals are no references: ${JSON.stringify(found)}`);
      assert.deepEqual(
        result.imports.map((i) => i.module),
        sample.imports,
      );
    });
  }

  // Go to definition of a local, as the language services do: the innermost scope's declaration, the last one before
  // the use; a shorthand property's value is the local it names; a member or a name no local declares is none.
  it('finds the parameter or local variable a bare name denotes', async () => {
    const ts = await grammar('typescript');
    const source = LOCALS_SOURCE;
    const at = (line: number, text: string, nth = 0) => {
      let column = -1;
      for (let i = 0; i <= nth; i++) column = source.split('\n')[line - 1].indexOf(text, column + 1);
      const found = localDefinitionAt(ts, source, line, column, 1_000);
      return found && [found.line, found.column];
    };
    assert.deepEqual(at(3, 'url'), [2, 20], 'the parameter');
    assert.deepEqual(at(3, 'headers'), [2, 33]);
    assert.deepEqual(at(6, 'url'), [5, 10], 'the inner block shadows the parameter');
    assert.deepEqual(at(8, 'later'), [9, 6], 'declared after the use, in the same scope');
    assert.deepEqual(at(8, 'options'), [3, 8]);
    assert.equal(at(8, 'url'), undefined, '`this.url`: a member');
    assert.equal(at(8, 'url', 1), undefined, '`options.url`: a member');
    assert.equal(at(11, 'url'), undefined, 'top level: the index has it');
    const py = await grammar('python');
    const python =
      'def f(name):\n    total = 0\n    return total + name + other\n\ndef g(self, total):\n    return self.total + h(total=1)\n';
    assert.deepEqual(localDefinitionAt(py, python, 3, 11, 1_000), { name: 'total', line: 2, column: 4, text: 'total = 0' });
    assert.deepEqual(localDefinitionAt(py, python, 3, 19, 1_000), { name: 'name', line: 1, column: 6, text: 'def f(name):' });
    assert.equal(localDefinitionAt(py, python, 3, 19, 1_000, 'total'), undefined, 'another name at that position');
    assert.equal(localDefinitionAt(py, python, 3, undefined, 1_000, 'name')?.line, 1, 'no column: the name on the line');
    assert.equal(localDefinitionAt(py, python, 3, 26, 1_000), undefined);
    assert.equal(localDefinitionAt(py, python, 6, 16, 1_000), undefined, '`self.total`: a member, not the parameter');
    assert.equal(localDefinitionAt(py, python, 6, 26, 1_000), undefined, "`h(total=1)`: an argument's name");
    const go = await grammar('go');
    const gosrc = 'package p\n\nfunc F(n int) int {\n\tm := n * 2\n\treturn m + N\n}\n\nfunc G(m int) T {\n\treturn T{m: m}\n}\n';
    assert.deepEqual(localDefinitionAt(go, gosrc, 5, 8, 1_000), { name: 'm', line: 4, column: 1, text: 'm := n * 2' });
    assert.equal(localDefinitionAt(go, gosrc, 5, 12, 1_000), undefined);
    assert.equal(localDefinitionAt(go, gosrc, 9, 10, 1_000), undefined, '`T{m: …}`: the key is a field of T');
    assert.deepEqual(localDefinitionAt(go, gosrc, 9, 13, 1_000)?.line, 8, '`T{…: m}`: the value is the parameter');
  });

  // Find references of a local: the other names that denote the same declaration, by the same scoping.
  it('lists the uses of a parameter or local variable, from its declaration or from a use', async () => {
    const ts = await grammar('typescript');
    const source = LOCALS_SOURCE;
    const uses = (grammarOf: Awaited<ReturnType<typeof grammar>>, text: string, line: number, column: number) =>
      localDefinitionAt(grammarOf, text, line, column, 1_000, undefined, true)?.uses?.map((u) => `${u.line}:${u.column} ${u.kind}`);
    assert.deepEqual(uses(ts, source, 2, 20), ['3:20 read'], 'the parameter: not the inner `url`, nor the members');
    assert.deepEqual(uses(ts, source, 3, 20), ['3:20 read'], 'asked at a use: the same local');
    assert.deepEqual(uses(ts, source, 5, 10), ['6:13 read']);
    assert.deepEqual(uses(ts, source, 9, 6), ['8:34 read'], 'used before its (hoisted) declaration');
    assert.equal(uses(ts, source, 1, 4), undefined, "the file's own `url` is the index's, no local");
    assert.equal(localDefinitionAt(ts, source, 2, 20, 1_000)?.uses, undefined, 'uses only when asked');
    const destructured = 'function h(o: { a: number }) {\n  const { a } = o;\n  return a + o.a;\n}';
    assert.deepEqual(uses(ts, destructured, 2, 10), ['3:9 read'], 'a name a destructuring declares; not the member `o.a`');
    const py = await grammar('python');
    const python = 'def k(cb):\n    n = 1\n    n += cb(n)\n    return n\n';
    assert.deepEqual(uses(py, python, 2, 4), ['3:4 write', '3:12 read', '4:11 read']);
    assert.deepEqual(uses(py, python, 1, 6), ['3:9 call']);
    // Assigned again: still the one variable of the function, as jedi lists it (from either assignment).
    const again = 'def p(key):\n    key = key.strip()\n    return key\n';
    assert.deepEqual(uses(py, again, 1, 6), ['2:4 write', '2:10 read', '3:11 read']);
    assert.deepEqual(uses(py, again, 2, 4), ['1:6 read', '2:10 read', '3:11 read']);
  });

  it('keeps what it can read of a file with syntax errors, and survives deep nesting', async () => {
    const broken = extract(
      await grammar('typescript'),
      'export function ok() {}\nclass Broken {\n  method( {\n}\nexport function after() {}\n',
      1_000,
    );
    assert.equal(broken.syntaxErrors, true);
    assert.ok(broken.symbols.some((s) => s.name === 'ok'));
    const deep = `${'function f() {'.repeat(5_000)}${'}'.repeat(5_000)}`;
    const nested = extract(await grammar('javascript'), deep, 5_000);
    assert.equal(nested.symbols.length, 5_000);
  });

  describe('pool', () => {
    let dir: string;
    let pool: ParsePool;
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'sextant-parsing-'));
      pool = new ParsePool({ threads: 2, timeoutMs: 2_000, maxBytes: 1 << 20 });
    });
    after(async () => {
      await pool.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('parses files off the main thread and says why a file stays at file level', async () => {
      writeFileSync(join(dir, 'a.ts'), 'export class Ünïcode { μ() {} }\n');
      writeFileSync(join(dir, 'bin.ts'), Buffer.from([0x65, 0, 0x66]));
      writeFileSync(join(dir, 'latin1.py'), Buffer.from('def caf\xe9():\n    pass\n', 'latin1'));
      const parsed = await pool.parse(join(dir, 'a.ts'), 'typescript');
      assert.ok('symbols' in parsed, JSON.stringify(parsed));
      assert.deepEqual(
        parsed.symbols.map((s) => s.name),
        ['Ünïcode', 'μ'],
      );
      assert.deepEqual(await pool.parse(join(dir, 'bin.ts'), 'typescript'), { skipped: 'binary' });
      assert.deepEqual(await pool.parse(join(dir, 'a.ts'), 'cobol'), { skipped: 'unsupported_language' });
      assert.equal(((await pool.parse(join(dir, 'missing.ts'), 'typescript')) as { skipped: string }).skipped, 'unreadable');
      const latin = await pool.parse(join(dir, 'latin1.py'), 'python');
      assert.ok('symbols' in latin && latin.symbols.length === 1, 'a non-UTF-8 file is read with replacement characters');
    });

    it('stops a file past its time budget and goes on', async () => {
      const tight = new ParsePool({ threads: 1, timeoutMs: 5, maxBytes: 1 << 24 });
      try {
        const big = Array.from({ length: 100_000 }, (_, i) => `export function f${i}(a: number) { return a + ${i}; }`).join('\n');
        writeFileSync(join(dir, 'generated.ts'), big);
        assert.equal(((await tight.parse(join(dir, 'generated.ts'), 'typescript')) as { skipped: string }).skipped, 'time_budget');
        writeFileSync(join(dir, 'small.ts'), 'export const x = 1;\n');
        const small = await tight.parse(join(dir, 'small.ts'), 'typescript');
        assert.ok('symbols' in small, JSON.stringify(small));
        // The stopped parse is not resumed: the next file is read as itself.
        assert.deepEqual(brief(small.symbols), [['x', 'constant', 1, null]]);
      } finally {
        await tight.close();
      }
    });
  });
});
