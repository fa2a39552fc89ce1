/**
 * A thread of bench/symbols' parallel raw floor: web-tree-sitter parse + query of the files it is given (paths under
 * `dir`, with their languages), nothing else, as `raw` in main.ts does on one thread. It loads its grammars, posts
 * 'ready', parses once told to go (the clock starts when every thread is ready), then posts the bytes it parsed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { Grammars } from '@sextant/parsing';

const { dir, files } = workerData as { dir: string; files: Array<{ path: string; language: string; bytes: number }> };
const grammars = new Grammars();
for (const language of new Set(files.map((f) => f.language))) await grammars.get(language);
parentPort!.once('message', async () => {
  let bytes = 0;
  for (const file of files) {
    const grammar = await grammars.get(file.language);
    if (!grammar || 'error' in grammar) continue;
    const tree = grammar.parser.parse(readFileSync(join(dir, file.path), 'utf8'));
    if (!tree) continue;
    grammar.query.matches(tree.rootNode);
    tree.delete();
    bytes += file.bytes;
  }
  parentPort!.postMessage(bytes);
});
parentPort!.postMessage('ready');
