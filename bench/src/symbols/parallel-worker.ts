/**
 * A thread of bench/symbols' floor and parallel figures: of the files it is given (paths under `dir`, with their languages),
 * either web-tree-sitter parse + query and nothing else (`raw`: on one thread, the floor), or `extract` as the
 * parse worker runs it, results dropped (no pool, no transfer, no storage). It loads its grammars, posts 'ready',
 * works once told to go (the clock starts when every thread is ready), then posts the bytes it did.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { BudgetExceeded, extract, Grammars } from '@sextant/parsing';

const { dir, files, what } = workerData as {
  dir: string;
  files: Array<{ path: string; language: string; bytes: number }>;
  what: 'raw' | 'extract';
};
const grammars = new Grammars();
for (const language of new Set(files.map((f) => f.language))) await grammars.get(language);
async function work(): Promise<void> {
  let bytes = 0;
  for (const file of files) {
    const grammar = await grammars.get(file.language);
    if (!grammar || 'error' in grammar) continue;
    const source = readFileSync(join(dir, file.path), 'utf8');
    if (what === 'extract') {
      try {
        // The symbol indexer's per-file budget, as in the pool.
        extract(grammar, source, 2_000);
      } catch (error) {
        if (!(error instanceof BudgetExceeded)) throw error;
        continue;
      }
    } else {
      const tree = grammar.parser.parse(source);
      if (!tree) continue;
      grammar.query.matches(tree.rootNode);
      tree.delete();
    }
    bytes += file.bytes;
  }
  parentPort!.postMessage(bytes);
}
// A failure is rethrown as an uncaught exception, which ends this thread, as the unhandled rejection did before.
parentPort!.once('message', () => {
  work().catch((error: unknown) => {
    setImmediate(() => {
      throw error;
    });
  });
});
parentPort!.postMessage('ready');
