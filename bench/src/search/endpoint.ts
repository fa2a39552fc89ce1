/**
 * bench/search endpoint — indexing throughput with EMBEDDINGS_URL against a local OpenAI-compatible fake whose capacity
 * is like one accelerator's (requests served one at a time, each taking a fixed cost plus a cost per input), compared
 * with the fake's raw batch throughput (a client that only posts batches, several in flight). Target: ≥ 0.9× raw —
 * batching and concurrency hide the round trips.
 * Usage: npm run bench:search-endpoint   (corpus under $SEXTANT_BENCH_CORPUS, default <tmp>/sextant-bench-corpus)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { leanCaller, startEmbedded, startFakeEmbeddings } from '@sextant/testing';
import { buildCorpus } from '../grep/corpus.js';
import { fullIndex } from '../jobs.js';
import { verdict } from '../stats.js';

/** The fake's capacity: 40 ms per request plus 1.5 ms per input (a batch of 64: 136 ms, about 470 inputs/s). */
const CAPACITY = { perRequestMs: 40, perInputMs: 1.5 };
const DIMENSION = 256;
const BATCH = 64;
const IN_FLIGHT = 4;
const RAW_SECONDS = 8;
/** The repository indexed: typeorm's package (about 3,000 files: the endpoint, not the job's fixed costs, sets the pace). */
const PACKAGE = 'typeorm';

/** Inputs per second when a client does nothing but post full batches, IN_FLIGHT at a time. */
async function rawThroughput(url: string, model: string, texts: readonly string[]): Promise<number> {
  let sent = 0;
  const until = performance.now() + RAW_SECONDS * 1000;
  const started = performance.now();
  const loop = async (offset: number) => {
    for (let i = offset; performance.now() < until; i += BATCH * IN_FLIGHT) {
      const input = Array.from({ length: BATCH }, (_, j) => texts[(i + j) % texts.length]);
      const res = await fetch(`${url}/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model, input }),
      });
      if (!res.ok) throw new Error(`raw batch: ${res.status} ${await res.text()}`);
      await res.json();
      sent += BATCH;
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, (_, i) => loop(i * BATCH)));
  return sent / ((performance.now() - started) / 1000);
}

async function main(): Promise<void> {
  const corpusRoot = process.env.SEXTANT_BENCH_CORPUS ?? join(tmpdir(), 'sextant-bench-corpus');
  buildCorpus(corpusRoot);
  const repository = join(corpusRoot, 'npm', PACKAGE);
  const sample = readFileSync(join(corpusRoot, 'npm', 'lodash', 'lodash.js'), 'utf8');
  const texts = Array.from({ length: 512 }, (_, i) => sample.slice(i * 1_500, i * 1_500 + 1_500)).filter(Boolean);
  const fake = await startFakeEmbeddings({ dimension: DIMENSION, serial: CAPACITY });
  const work = mkdtempSync(join(tmpdir(), 'sxe-'));
  try {
    const raw = await rawThroughput(fake.url, fake.model, texts);
    console.log(`fake endpoint, raw batches of ${BATCH}, ${IN_FLIGHT} in flight: ${raw.toFixed(0)} inputs/s`);
    fake.requests.length = 0;
    const embedded = await startEmbedded({
      SEXTANT_DATA_DIR: work,
      SEXTANT_WORKSPACE: repository,
      SEXTANT_INDEXING_STAGES: 'vectors',
      EMBEDDINGS_URL: fake.url,
      EMBEDDINGS_MODEL: fake.model,
      EMBEDDINGS_DIMENSIONS: String(DIMENSION),
    });
    try {
      const call = leanCaller(embedded.url);
      const job = await fullIndex(call);
      call.close();
      const chunks = job.stats.chunks_indexed ?? 0;
      const seconds = job.elapsedMs / 1000;
      const inputs = fake.requests.reduce((n, r) => n + r.inputs, 0);
      const rate = chunks / seconds;
      console.log(
        `full index of ${PACKAGE} with EMBEDDINGS_URL: ${seconds.toFixed(1)} s, ${chunks} chunks, ${rate.toFixed(0)} chunks/s ` +
          `(${fake.requests.length} requests, ${(inputs / Math.max(1, fake.requests.length)).toFixed(1)} inputs each)`,
      );
      console.log('\ntargets:');
      console.log(
        verdict(rate >= 0.9 * raw, 'indexing throughput ≥ 0.9× the endpoint’s raw batch throughput', `${(rate / raw).toFixed(2)}×`),
      );
    } finally {
      await embedded.stop();
    }
  } finally {
    await fake.close();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
