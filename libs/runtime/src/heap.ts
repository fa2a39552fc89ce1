import { setFlagsFromString } from 'node:v8';
import { z } from 'zod';
import { env, parseEnv } from './config.js';

/**
 * How far past what the last full collection kept V8 lets the JavaScript
 * heap grow before collecting again, in percent. V8 alone grows it up to 4×
 * when collections are cheap: an indexing service that keeps ~130 MB live
 * and allocates its batches quickly then holds 450 MB of heap, most of it
 * garbage (bench/search; ADR 0025). 50 keeps it near 1.5× for a few percent
 * more collection work; 0 leaves V8's own heuristics.
 */
export const HeapEnv = z.object({
  SEXTANT_HEAP_GROWTH_PERCENT: env.int(0, 400).default(50).meta({
    description:
      "how far (%) the heap may grow past what the last full collection kept before V8 collects again (`0`: V8's own heuristics)",
    details:
      'V8 alone grows it up to 300 % when collections are cheap, which an indexing service fills with garbage ([ADR 0025](adr/0025-bounded-heap-growth.md)).',
  }),
});

/** Applies SEXTANT_HEAP_GROWTH_PERCENT (throws ConfigError on a bad value); it holds from V8's next limit computation. */
export function boundHeapGrowth(environment: NodeJS.ProcessEnv): void {
  const percent = parseEnv(HeapEnv, environment).SEXTANT_HEAP_GROWTH_PERCENT;
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}
