import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { inRequestScope } from '@sextant/work';
import { Grammars } from './grammars.js';
import { parsedLanguages, type LanguageSpec } from './languages.js';
import parseFile from './pool-worker.js';
import { ParsePool, type ParseOutcome } from './pool.js';

/** Faults of the parse pool with real files, real grammars and real worker threads: each file is generated in a tmp dir. */
describe('parse pool faults', () => {
  let dir: string;
  let small: string;
  let pool: ParsePool;

  async function parse(on: ParsePool, name: string, content: string, language: string): Promise<{ outcome: ParseOutcome; ms: number }> {
    writeFileSync(join(dir, name), content);
    const start = performance.now();
    const outcome = await on.parse(join(dir, name), language);
    return { outcome, ms: Math.round(performance.now() - start) };
  }

  /** The pool still parses a small file of `language`, as itself (not as the rest of a stopped parse, not with a dead worker). */
  async function parsesSmallFile(on: ParsePool, language: 'typescript' | 'javascript' = 'typescript'): Promise<void> {
    const outcome = await on.parse(join(dir, language === 'typescript' ? 'small.ts' : 'small.js'), language);
    assert.ok('symbols' in outcome, JSON.stringify(outcome));
    assert.deepEqual(
      outcome.symbols.map((s) => [s.name, s.kind, s.line]),
      [['x', 'constant', 1]],
    );
  }

  const brief = (outcome: ParseOutcome) => ('symbols' in outcome ? `${outcome.symbols.length} symbols` : JSON.stringify(outcome));

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sextant-pool-faults-'));
    small = join(dir, 'small.ts');
    writeFileSync(small, 'export const x = 1;\n');
    writeFileSync(join(dir, 'small.js'), 'export const x = 1;\n');
    // The default budget; a size cap above the generated files. One thread: the machine has few cores.
    pool = new ParsePool({ threads: 1, timeoutMs: 2_000, maxBytes: 8 << 20 });
    await parsesSmallFile(pool); // the thread is started and its grammar loaded before anything is timed
  });
  after(async () => {
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // Proves a 5 MB one-line minified bundle is answered in bounded time (parsed, or skipped with its reason) and the pool goes on.
  it('answers a 5 MB minified JavaScript file in bounded time and then parses the next file', async (t) => {
    const parts: string[] = [];
    for (let i = 0, size = 0; size < 5 << 20; i++) {
      parts.push(`function f${i}(a,b){var c=a+b*${i};return g${i % 97}(c,a.x,b.y)}var v${i}=f${i}(1,"s${i}");`);
      size += parts.at(-1)!.length;
    }
    const { outcome, ms } = await parse(pool, 'bundle.min.js', parts.join(''), 'javascript');
    t.diagnostic(`5 MB minified: ${brief(outcome)} in ${ms} ms`);
    if ('skipped' in outcome) {
      assert.ok(['time_budget', 'worker_failed'].includes(outcome.skipped), JSON.stringify(outcome));
      assert.ok(outcome.reason, 'a skipped file says why');
    } else assert.ok(outcome.symbols.length >= parts.length);
    assert.ok(ms < 15_000, `answered after ${ms} ms`);
    await parsesSmallFile(pool, 'javascript'); // the same grammar's parser: a stopped parse must not be resumed on it
  });

  // Proves a 100,000-line file is either extracted whole or kept at file level (never half-read), and the next file is read as itself.
  it('parses or skips a 100,000-line TypeScript file, and the next file is read as itself', async (t) => {
    const source = `${Array.from({ length: 100_000 }, (_, i) => `export const v${i} = ${i};`).join('\n')}\n`;
    const { outcome, ms } = await parse(pool, 'lines.ts', source, 'typescript');
    t.diagnostic(`100,000 lines: ${brief(outcome)} in ${ms} ms`);
    if ('symbols' in outcome) assert.equal(outcome.symbols.length, 100_000);
    else if (outcome.skipped === 'worker_failed') {
      // Its ~300,000 query matches may need more than the worker's heap (WORKER_HEAP_MB): the thread dies, as pool.ts says.
      assert.match(outcome.reason ?? '', /memory limit/);
    } else assert.equal(outcome.skipped, 'time_budget', JSON.stringify(outcome));
    await parsesSmallFile(pool);
  });

  // Proves a worker that crashes on a file (out of heap: a real crash, no hook) costs that file only: worker_failed, then a fresh worker.
  it('reports a file whose worker crashes as worker_failed and goes on with a fresh worker', async (t) => {
    // A budget far off, so that neither the budget nor the hard stop can answer first: only the crash can.
    const roomy = new ParsePool({ threads: 1, timeoutMs: 60_000, maxBytes: 8 << 20 });
    try {
      // 600,000 references (1.2 MB): more query matches than the worker's heap (WORKER_HEAP_MB, 256 MB) holds; the
      // assertions below fail if the thread survives them.
      const { outcome, ms } = await parse(roomy, 'refs.js', 'a;'.repeat(600_000), 'javascript');
      t.diagnostic(`crash: ${brief(outcome)} in ${ms} ms`);
      assert.equal((outcome as { skipped: string }).skipped, 'worker_failed', JSON.stringify(outcome));
      assert.match((outcome as { reason: string }).reason, /memory limit/);
      await parsesSmallFile(roomy);
    } finally {
      await roomy.close();
    }
  });

  // Proves the hard stop: a file whose extraction runs on far past its budget is answered within budget × 2 + 5 s, and the pool goes on.
  it('stops a worker that hangs on a file and goes on with a fresh worker', async () => {
    // A worker module that never answers for one file (an endless loop in a grammar would look the same): the hard stop
    // (twice the budget plus slack) aborts the task, reports worker_failed, and the pool goes on with a new thread.
    const worker = join(dir, 'hanging-worker.mjs');
    writeFileSync(
      worker,
      [
        `const real = (await import(${JSON.stringify(new URL('./pool-worker.js', import.meta.url).href)})).default;`,
        "export default (task) => { if (task.path.endsWith('hang.ts')) for (;;); return real(task); };",
      ].join('\n'),
    );
    const hanging = new ParsePool({ threads: 1, timeoutMs: 200, maxBytes: 1 << 20, workerFile: pathToFileURL(worker) });
    try {
      const { outcome, ms } = await parse(hanging, 'hang.ts', 'export const x = 1;\n', 'typescript');
      assert.equal((outcome as { skipped: string }).skipped, 'worker_failed', JSON.stringify(outcome));
      assert.ok(ms >= 400 && ms < 200 * 2 + 5_000 + 5_000, `answered after ${ms} ms`);
      await parsesSmallFile(hanging);
    } finally {
      await hanging.close();
    }
  });

  it('attaches the supertypes of a file of 30,000 classes within the time budget', async () => {
    // Was quadratic (a scan of every earlier definition per supertype), outside the budget: minutes for this file.
    const source = Array.from({ length: 30_000 }, (_, i) => `class C${i} extends B {}`).join('\n');
    const roomy = new ParsePool({ threads: 1, timeoutMs: 10_000, maxBytes: 8 << 20 });
    try {
      const { outcome } = await parse(roomy, 'classes.ts', source, 'typescript');
      assert.ok('symbols' in outcome, JSON.stringify(brief(outcome)));
      assert.equal(outcome.symbols.length, 30_000);
      assert.deepEqual(outcome.symbols[29_999].supertypes, ['B']);
    } finally {
      await roomy.close();
    }
  });

  // Proves a grammar that fails to load (missing .wasm, a query it rejects) is remembered as {error} naming the language,
  // and the worker keeps that language's files at file level as grammar_unavailable.
  it('keeps the files of a grammar that fails to load at grammar_unavailable', async () => {
    // No way to point Grammars at another language table: the test adds two broken languages to the (cached, mutable) table
    // of this thread for its duration. The pool's threads have their own table, so the worker function is called here.
    const table = parsedLanguages() as Map<string, LanguageSpec>;
    const typescript = table.get('typescript')!;
    writeFileSync(join(dir, 'bad.scm'), '(no_such_node) @definition.function\n');
    table.set('no-wasm', { ...typescript, name: 'no-wasm', wasmPath: join(dir, 'missing.wasm') });
    table.set('bad-query', { ...typescript, name: 'bad-query', queryPaths: [join(dir, 'bad.scm')] });
    try {
      const grammars = new Grammars();
      for (const language of ['no-wasm', 'bad-query']) {
        const loaded = await grammars.get(language);
        assert.ok(loaded && 'error' in loaded, JSON.stringify(loaded));
        assert.match(loaded.error, new RegExp(`^the ${language} grammar could not be loaded: .+`));
        assert.equal(grammars.get(language), grammars.get(language), 'the failure is remembered, not retried per file');
      }
      const outcome = await parseFile({ path: small, language: 'bad-query', maxBytes: 1 << 20, timeoutMs: 2_000 });
      assert.equal((outcome as { skipped: string }).skipped, 'grammar_unavailable', JSON.stringify(outcome));
      assert.match((outcome as { reason: string }).reason, /bad-query grammar could not be loaded/);
      assert.ok('symbols' in (await parseFile({ path: small, language: 'typescript', maxBytes: 1 << 20, timeoutMs: 2_000 })));
    } finally {
      table.delete('no-wasm');
      table.delete('bad-query');
    }
  });

  // Proves the worker's read keeps a file it must not parse at file level, with its reason, without blocking on it.
  it('keeps a FIFO, a symbolic link, a file over the size limit and a binary file at file level', async () => {
    const capped = new ParsePool({ threads: 1, timeoutMs: 2_000, maxBytes: 64 });
    try {
      execFileSync('mkfifo', [join(dir, 'pipe.ts')]);
      symlinkSync(small, join(dir, 'link.ts'));
      writeFileSync(join(dir, 'big.ts'), `export const big = "${'x'.repeat(100)}";\n`);
      writeFileSync(join(dir, 'binary.ts'), Buffer.from([0x65, 0x78, 0, 0, 0x01, 0x02, 0xff, 0x00]));
      const skipped = async (name: string) => {
        const outcome = await capped.parse(join(dir, name), 'typescript');
        return 'skipped' in outcome ? `${outcome.skipped}${outcome.reason ? `: ${outcome.reason}` : ''}` : brief(outcome);
      };
      // No writer ever opens the FIFO: a read that waited for one would stop the test at its timeout.
      assert.equal(await skipped('pipe.ts'), 'unreadable: not a regular file');
      assert.match(await skipped('link.ts'), /^unreadable: ELOOP/);
      assert.equal(await skipped('big.ts'), 'too_large: 123 bytes, over the 64-byte limit');
      assert.equal(await skipped('binary.ts'), 'binary');
      // A file within the limit still parses, in the same worker.
      await parsesSmallFile(capped);
    } finally {
      await capped.close();
    }
  });

  // Proves a caller's question (go to definition of a local) does not wait behind an indexing job's queued files.
  it("serves a caller's task ahead of the indexing files waiting for a slot", async () => {
    const finished: string[] = [];
    const files = Array.from({ length: 12 }, (_, i) => {
      const path = join(dir, `queued${i}.ts`);
      writeFileSync(path, Array.from({ length: 3_000 }, (_, j) => `export function f${j}(a: number) { return a + ${j}; }`).join('\n'));
      return path;
    });
    writeFileSync(join(dir, 'local.ts'), 'function f(x: number) { return x; }\n');
    const background = files.map((path, i) => pool.parse(path, 'typescript').then(() => finished.push(`file ${i}`)));
    const asked = inRequestScope(undefined, () => pool.localDefinition(join(dir, 'local.ts'), 'typescript', 'x', 1, 31)).then((found) => {
      finished.push('question');
      return found;
    });
    assert.deepEqual(await asked, { name: 'x', line: 1, column: 11, text: 'function f(x: number) { return x; }' });
    await Promise.all(background);
    // One thread, two slots: the files already handed to piscina finish first, then the question, before the rest.
    assert.ok(finished.indexOf('question') <= 3, finished.join(', '));
  });
});
