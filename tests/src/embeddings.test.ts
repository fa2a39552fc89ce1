/**
 * Embeddings from an OpenAI-compatible endpoint (EMBEDDINGS_URL): the
 * client's batching, retries and refusals against a local server speaking
 * OpenAI's `/v1/embeddings` wire format (the only stand-in here), then
 * search over MCP with such a model, embedded, through its faults: a
 * rate-limiting endpoint is waited for, a wrong dimension fails the job
 * and keeps the index as it was, a dead endpoint leaves search lexical
 * with a warning.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  callTool,
  git,
  httpClient,
  startEmbedded,
  startFakeEmbeddings,
  writeTree,
  type FakeEmbeddings,
  type Sextant,
} from '@sextant/testing';
import { EndpointEmbedder, type EndpointEmbedderOptions } from '@sextant/vector-search';

const TEXTS = Array.from({ length: 10 }, (_, i) => `function handler${i}() { return retryWebhook(${i}); }`);

function embedder(fake: FakeEmbeddings, options: Partial<EndpointEmbedderOptions> = {}): EndpointEmbedder {
  return new EndpointEmbedder({
    url: fake.url,
    model: fake.model,
    dimension: fake.dimension,
    apiKey: 'sk-test',
    batchSize: 4,
    concurrency: 2,
    timeoutMs: 2_000,
    retries: 2,
    maxChars: 8_000,
    ...options,
  });
}

describe('EndpointEmbedder against an OpenAI-compatible /v1/embeddings', () => {
  let fake: FakeEmbeddings;

  before(async () => {
    fake = await startFakeEmbeddings({ apiKey: 'sk-test', dimension: 48 });
  });
  after(() => fake?.close());

  it('sends batches with the key, and gives each text its own normalized vector, in order', async () => {
    fake.requests.length = 0;
    const vectors = await embedder(fake).embed(TEXTS);
    assert.deepEqual(
      fake.requests.map((r) => [r.inputs, r.model, r.authorization]),
      [4, 4, 2].map((n) => [n, fake.model, 'Bearer sk-test']),
    );
    assert.equal(vectors.length, TEXTS.length);
    TEXTS.forEach((text, i) => {
      const expected = fake.vectorOf(text);
      assert.equal(vectors[i].length, 48);
      assert.ok(
        expected.every((v, j) => Math.abs(v - vectors[i][j]) < 1e-6),
        `vector ${i} is the endpoint's vector of text ${i}`,
      );
    });
  });

  it('waits out a 429 (Retry-After), a 503 and a dropped connection, then succeeds', async () => {
    fake.requests.length = 0;
    fake.fail([{ status: 429, retryAfter: 0, message: 'Rate limit reached' }, { status: 503 }, { drop: true }]);
    const vectors = await embedder(fake, { batchSize: 100, retries: 3 }).embed(TEXTS);
    assert.equal(vectors.length, TEXTS.length);
    assert.equal(fake.requests.length, 4, 'three failures, then the answer');
  });

  it('fails at once, with the endpoint reason, on a refused key, an unknown model and a wrong dimension', async () => {
    fake.requests.length = 0;
    await assert.rejects(embedder(fake, { apiKey: 'sk-wrong' }).embed(['x']), /answered 401: Incorrect API key provided/);
    await assert.rejects(embedder(fake, { model: 'nope' }).embed(['x']), /answered 404: The model `nope` does not exist/);
    await assert.rejects(embedder(fake, { dimension: 64 }).embed(['x']), /48-dimension vectors .*EMBEDDINGS_DIMENSIONS is 64/);
    assert.equal(fake.requests.length, 3, 'none of them retried');
  });

  it('gives up after its retries on a slow endpoint, a long Retry-After, and an unreachable one', async () => {
    fake.fail([{ delayMs: 400 }, { delayMs: 400 }]);
    await assert.rejects(embedder(fake, { timeoutMs: 150, retries: 1 }).embed(['x']), /did not answer within 150 ms \(after 2 attempts\)/);
    fake.requests.length = 0;
    fake.fail([{ status: 429, retryAfter: 3600 }]);
    const started = Date.now();
    await assert.rejects(embedder(fake).embed(['x']), /answered 429/);
    assert.ok(Date.now() - started < 1_000, 'an hour-long Retry-After is not waited for');
    assert.equal(fake.requests.length, 1);
    const closed = await startFakeEmbeddings();
    await closed.close();
    await assert.rejects(embedder(closed, { retries: 1 }).embed(['x']), /could not be reached \(ECONNREFUSED\) \(after 2 attempts\)/);
  });
});

interface SearchBody {
  results: Array<{ path: string; snippet: string }>;
  meta: { collection: string; mode: string; warnings?: string[]; embeddings: { model: string; kind: string; dimension: number } };
}
interface JobBody {
  job_id: string;
  status: string;
}

describe('search with an embeddings endpoint (embedded)', () => {
  let base: string;
  let repo: string;
  let fake: FakeEmbeddings;
  let sextant: Sextant;
  let client: Client;

  const sync = async (): Promise<{ status: string; error_message: string | null }> => {
    const job = await callTool<JobBody>(client, 'sync_repo', {});
    assert.equal(job.isError, false, JSON.stringify(job.body));
    for (;;) {
      const status = await callTool<{ status: string; error_message: string | null }>(client, 'get_index_job_status', {
        runId: job.body.job_id,
      });
      if (['completed', 'failed', 'skipped'].includes(status.body.status)) return status.body;
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const commit = (message: string) => {
    git(repo, 'add', '-A');
    git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', message);
  };

  before(async () => {
    base = mkdtempSync(join(tmpdir(), 'sextant-embeddings-'));
    repo = join(base, 'shop');
    writeTree(repo, {
      'src/invoice.ts': 'export function invoiceTotal(lines: number[]) {\n  return lines.reduce((a, b) => a + b, 0);\n}\n',
      'src/webhooks.ts': 'export async function retryWebhook(url: string) {\n  return fetch(url, { method: "POST" });\n}\n',
    });
    git(repo, 'init', '-q', '--initial-branch=main');
    commit('start');
    fake = await startFakeEmbeddings({ model: 'nomic-embed-text', dimension: 64 });
    sextant = await startEmbedded({
      SEXTANT_WORKSPACE: repo,
      EMBEDDINGS_URL: fake.url,
      EMBEDDINGS_MODEL: 'nomic-embed-text',
      EMBEDDINGS_DIMENSIONS: '64',
      EMBEDDINGS_RETRIES: '2',
      EMBEDDINGS_QUERY_TIMEOUT_MS: '300',
      SEXTANT_INDEXING_STAGES: 'vectors',
    });
    client = await httpClient(sextant.url);
    assert.equal((await sync()).status, 'completed');
  });
  after(async () => {
    await client?.close();
    await sextant?.stop();
    await fake?.close();
    rmSync(base, { recursive: true, force: true });
  });

  it("indexes and searches with the endpoint's model, in a collection of its own", async () => {
    const indexedWith = fake.requests.length;
    assert.ok(indexedWith > 0, 'the chunks were embedded by the endpoint');
    const found = await callTool<SearchBody>(client, 'search_code', { query: 'invoice total', mode: 'semantic' });
    assert.equal(found.isError, false, JSON.stringify(found.body));
    assert.equal(found.body.results[0].path, 'src/invoice.ts');
    assert.deepEqual(found.body.meta.embeddings, { model: 'nomic-embed-text', kind: 'semantic', dimension: 64 });
    assert.deepEqual([found.body.meta.collection, found.body.meta.mode], ['nomic_embed_text_64', 'semantic']);
    assert.equal(fake.requests.length, indexedWith + 1, 'the query was embedded by the endpoint');
  });

  it('waits out a rate-limiting endpoint while indexing', async () => {
    writeFileSync(join(repo, 'src/refund.ts'), 'export function refundOrder(id: string) {\n  return id;\n}\n');
    commit('refund');
    fake.fail([{ status: 429, retryAfter: 0 }, { status: 502 }]);
    assert.equal((await sync()).status, 'completed');
    const found = await callTool<SearchBody>(client, 'search_code', { query: 'refund order', mode: 'semantic', topK: 1 });
    assert.equal(found.body.results[0].path, 'src/refund.ts');
  });

  it('fails the job clearly when the endpoint answers another dimension, and keeps the index as it was', async () => {
    writeFileSync(join(repo, 'src/invoice.ts'), 'export function invoiceGrandTotal(lines: number[]) {\n  return 0;\n}\n');
    commit('rename');
    fake.fail(Array.from({ length: 10 }, () => ({ dimension: 32 })));
    const job = await sync();
    assert.equal(job.status, 'failed');
    assert.match(job.error_message ?? '', /32-dimension vectors for model nomic-embed-text; EMBEDDINGS_DIMENSIONS is 64/);
    const found = await callTool<SearchBody>(client, 'search_code', { query: 'invoiceTotal', mode: 'lexical', topK: 1 });
    assert.match(found.body.results[0].snippet, /invoiceTotal/, 'the file as last indexed, not half of the new one');
  });

  it('answers lexically, with a warning, while the endpoint is down, and does not wait for it on every call', async () => {
    await fake.close();
    const first = await callTool<SearchBody>(client, 'search_code', { query: 'retry webhook' });
    assert.equal(first.isError, false, JSON.stringify(first.body));
    assert.equal(first.body.meta.mode, 'lexical');
    assert.match(first.body.meta.warnings?.join(' ') ?? '', /could not be embedded .*could not be reached.*lexical only/);
    assert.equal(first.body.results[0].path, 'src/webhooks.ts');
    const started = Date.now();
    const second = await callTool<SearchBody>(client, 'search_code', { query: 'invoice', mode: 'semantic' });
    assert.ok(Date.now() - started < 250, 'the endpoint that just failed is not tried again at once');
    assert.equal(second.body.meta.mode, 'lexical');
    assert.match(second.body.meta.warnings?.join(' ') ?? '', /failed \d+ s ago .*lexical only/);
  });
});
