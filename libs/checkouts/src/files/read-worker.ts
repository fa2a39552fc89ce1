/**
 * A worker thread that reads and hashes files for the walker (see walker.ts),
 * so that a full scan's hashing and buffer handling stay off the event loop
 * of the service that runs it. It reads with blocking calls, one file after
 * another (`readFilesSync`): nothing else runs on this thread to wait.
 * Results travel back in chunks.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { readFilesSync, type ReadResult, type ToRead } from './read-files.js';

const { dir, items, maxBytes } = workerData as { dir: string; items: ToRead[]; maxBytes: number };
const CHUNK = 200;
let chunk: ReadResult[] = [];
readFilesSync(dir, items, maxBytes, (result) => {
  chunk.push(result);
  if (chunk.length >= CHUNK) {
    parentPort!.postMessage(chunk);
    chunk = [];
  }
});
parentPort!.postMessage(chunk);
