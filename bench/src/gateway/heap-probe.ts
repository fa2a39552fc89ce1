/**
 * Loaded into a process under benchmark with `--expose-gc --import <this file>`:
 * on SIGUSR2 it runs a full garbage collection and prints the heap still in
 * use as one JSON line, `{"bench_heap_used": <bytes>, "seq": <n>}`. Heap after
 * a forced GC is what a leak grows; RSS follows V8's heap sizing and the
 * allocator, so it moves with machine load.
 */
let seq = 0;
const gc = (globalThis as { gc?: () => void }).gc;
if (gc) {
  process.on('SIGUSR2', () => {
    gc();
    gc();
    process.stderr.write(`${JSON.stringify({ bench_heap_used: process.memoryUsage().heapUsed, seq: ++seq })}\n`);
  });
}
