/**
 * bench/symbols/scaling — how each language's parse and query time grows with a hostile file: one construct repeated
 * n and 4n times (a list of names, a class of members, a chain, a nesting), timed at both sizes (best of three).
 * Linear work takes ~4× as long at 4n; a pattern whose matches wait for something after a list takes ~16× or more
 * (a bundle's 2,000-name `export {…}` once cost 6 s of query). Rows past 8× are marked; a file's time budget
 * (SYMBOLS_FILE_TIMEOUT_MS) bounds what such a file costs the index, but the file is then kept at file level.
 * Usage: npm run bench:symbols-scaling [-- <language>] [-- --n 2000]
 */
import { Grammars, parsedLanguages, type Grammar } from '@sextant/parsing';

type Make = (n: number) => string;

/** `n` items made by `item`, joined. */
const list = (n: number, item: (i: number) => string, separator = '\n') => Array.from({ length: n }, (_, i) => item(i)).join(separator);

const TS_AND_JS: Array<[string, Make]> = [
  ['import list', (n) => `import { ${list(n, (i) => `a${i} as b${i}`, ', ')} } from './m';`],
  ['export list', (n) => `export { ${list(n, (i) => `a${i} as b${i}`, ', ')} } from './m';`],
  ['require names', (n) => `const { ${list(n, (i) => `k${i}`, ', ')} } = require('x');`],
  ['destructuring', (n) => `const { ${list(n, (i) => `k${i}: v${i}`, ', ')} } = this.opts;`],
  ['object keys', (n) => `const o = { ${list(n, (i) => `k${i}: v${i}`, ', ')} };`],
  ['call arguments', (n) => `f(${list(n, (i) => `a${i}`, ', ')});`],
  ['class members', (n) => `class C { ${list(n, (i) => `m${i}(a) { return this.f${i} = new T(a); }`)} }`],
  ['statements', (n) => `function g() { ${list(n, (i) => `const x${i} = this.a.b(${i});`)} }`],
  ['concatenation', (n) => `const s = ${list(n, (i) => `'s${i}'`, ' + ')};`],
  ['nested calls', (n) => `${'f('.repeat(n)}x${')'.repeat(n)};`],
  ['nested objects', (n) => `const o = ${'{a: '.repeat(n / 4)}1${'}'.repeat(n / 4)};`],
  ['member chain', (n) => `x = a${list(n, (i) => `.p${i}`, '')};`],
  ['call chain', (n) => `a${list(n, (i) => `.m${i}()`, '')};`],
];

const CASES: Record<string, Array<[string, Make]>> = {
  javascript: TS_AND_JS,
  typescript: [
    ...TS_AND_JS,
    ['parameter destructuring', (n) => `function f({ ${list(n, (i) => `k${i}`, ', ')} }: Opts) {}`],
    ['interface', (n) => `interface I { ${list(n, (i) => `m${i}(a: string): T${i};`)} }`],
    ['union', (n) => `type U = ${list(n, (i) => `A${i}`, ' | ')};`],
  ],
  tsx: [['elements', (n) => `const v = <div>${list(n, (i) => `<span key={k${i}} onClick={h${i}}>{t${i}}</span>`, '')}</div>;`]],
  python: [
    ['from import', (n) => `from m import (${list(n, (i) => `a${i} as b${i}`, ', ')})`],
    ['import list', (n) => `import ${list(n, (i) => `m${i}`, ', ')}`],
    ['keyword arguments', (n) => `f(${list(n, (i) => `a${i}=v${i}`, ', ')})`],
    ['class body', (n) => `class C(B):\n${list(n, (i) => `    def m${i}(self, x: T):\n        self.x${i} = T()`)}`],
    ['statements', (n) => `def g():\n${list(n, (i) => `    x${i} = self.a.b(${i})`)}`],
    ['tuple assignment', (n) => `${list(n, (i) => `a${i}`, ', ')} = f()`],
  ],
  go: [
    ['imports', (n) => `package p\nimport (\n${list(n, (i) => `\tm${i} "x/m${i}"`)}\n)`],
    ['struct', (n) => `package p\ntype S struct {\n${list(n, (i) => `\tF${i} T${i} \`json:"f"\``)}\n}`],
    ['composite literal', (n) => `package p\nvar v = T{${list(n, (i) => `F${i}: x${i}`, ', ')}}`],
    ['parameters', (n) => `package p\nfunc f(${list(n, (i) => `a${i} T`, ', ')}) {}`],
    ['statements', (n) => `package p\nfunc g() {\n${list(n, (i) => `\tx${i} := a.B(${i})`)}\n}`],
    ['multiple assignment', (n) => `package p\nfunc h() { ${list(n, (i) => `a${i}`, ', ')} := f() }`],
  ],
  java: [
    ['class', (n) => `class C extends B { ${list(n, (i) => `T f${i} = new T(); void m${i}(T a) { a.x(); }`)} }`],
    ['arguments', (n) => `class C { void m() { f(${list(n, (i) => `a${i}`, ', ')}); } }`],
  ],
  rust: [
    ['use list', (n) => `use a::{${list(n, (i) => `b${i}::C${i} as D${i}`, ', ')}};`],
    ['impl', (n) => `impl T for S { ${list(n, (i) => `fn m${i}(&self, a: T) -> U { a.x() }`)} }`],
  ],
  c_sharp: [['class', (n) => `class C : B { ${list(n, (i) => `T f${i} = new T(); void M${i}(T a) { a.X(); }`)} }`]],
  php: [['class', (n) => `<?php\nclass C extends B { ${list(n, (i) => `public function m${i}($a) { return $a->x(); }`)} }`]],
  ruby: [['class', (n) => `class C < B\n${list(n, (i) => `  def m${i}(a)\n    a.x\n  end`)}\nend`]],
  c: [['enum', (n) => `enum E { ${list(n, (i) => `A${i}`, ', ')} };`]],
  cpp: [['class', (n) => `class C : public B { ${list(n, (i) => `T f${i}; void m${i}(T a) { a.x(); }`)} };`]],
};

/** Best of three: parse and query ms. */
function time(grammar: Grammar, source: string): { parse: number; query: number } {
  let best = { parse: Infinity, query: Infinity };
  for (let run = 0; run < 3; run++) {
    const started = performance.now();
    const tree = grammar.parser.parse(source)!;
    const parsed = performance.now();
    grammar.query.matches(tree.rootNode);
    const queried = performance.now();
    tree.delete();
    best = { parse: Math.min(best.parse, parsed - started), query: Math.min(best.query, queried - parsed) };
  }
  return best;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const at = args.indexOf('--n');
  const n = at >= 0 ? Number(args[at + 1]) : 1_000;
  const only = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--n');
  const grammars = new Grammars();
  console.log(`bench/symbols/scaling: each construct ×${n} and ×${4 * n}, best of three; ms`);
  let marked = 0;
  for (const [language, cases] of Object.entries(CASES)) {
    if (only && language !== only) continue;
    if (!parsedLanguages().has(language)) throw new Error(`${language}: not a parsed language`);
    const grammar = await grammars.get(language);
    if (!grammar || 'error' in grammar) throw new Error(`${language}: ${grammar ? grammar.error : 'no grammar'}`);
    for (const [name, make] of cases) {
      const small = time(grammar, make(n));
      const large = time(grammar, make(4 * n));
      // Below a millisecond the ratio says nothing.
      const growth = (a: number, b: number) => b / Math.max(a, 1);
      const worst = Math.max(growth(small.parse, large.parse), growth(small.query, large.query));
      if (worst > 8) marked++;
      console.log(
        `${language.padEnd(11)} ${name.padEnd(24)} query ${small.query.toFixed(1).padStart(7)} → ${large.query.toFixed(1).padStart(8)}` +
          `   parse ${small.parse.toFixed(1).padStart(6)} → ${large.parse.toFixed(1).padStart(7)}   ×${worst.toFixed(1)}${worst > 8 ? '  superlinear' : ''}`,
      );
    }
  }
  console.log(`${marked} construct(s) grow faster than ×8 at four times the size`);
}

await main();
