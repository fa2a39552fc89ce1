/**
 * A worker thread that reads and hashes files for the walker (see walker.ts),
 * so that a full scan's hashing and buffer handling stay off the event loop
 * of the service that runs it. Results travel back in chunks.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readFiles, type ReadResult, type ToRead } from './read-files.js';

const { dir, items, maxBytes, concurrency } = workerData as { dir: string; items: ToRead[]; maxBytes: number; concurrency: number };
const CHUNK = 200;
let chunk: ReadResult[] = [];
await readFiles(dir, items, maxBytes, concurrency, (result) => {
  chunk.push(result);
  if (chunk.length >= CHUNK) {
    parentPort!.postMessage(chunk);
    chunk = [];
  }
});
parentPort!.postMessage(chunk);
