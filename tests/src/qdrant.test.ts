/**
 * search_code over Qdrant (VECTOR_STORE=qdrant, set by QDRANT_URL),
 * embedded: indexing writes each chunk as a point with a dense and a sparse
 * vector, hybrid search is one Query API call (prefetch + rrf), an edit
 * replaces a file's points, points an older indexer wrote without `repo`
 * come back as "(unknown)", and Qdrant down is `unavailable`. Qdrant runs
 * as a local server speaking its REST wire format (no Qdrant server can run
 * on these machines), and every exchange with it is checked against
 * Qdrant's published schema. With TEST_QDRANT_URL the same suite runs
 * against a real Qdrant instead.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  callTool,
  checkQdrantExchanges,
  httpClient,
  startEmbedded,
  startFakeQdrant,
  type FakeQdrant,
  type Sextant,
} from '@sextant/testing';
import { termIndex, tokenize } from '@sextant/vector-search';
import { commitAll, indexed, makeRepository, SHOP } from './shop.js';

interface SearchBody {
  results: Array<{ repo: string; path: string; startLine: number; snippet: string; score: number }>;
  meta: { collection: string; mode: string; warnings?: string[] };
}

const COLLECTION = 'sextant_hashing_v1_256';

describe('search_code over Qdrant (embedded, VECTOR_STORE=qdrant)', () => {
  let base: string;
  let shop: string;
  let qdrant: FakeQdrant;
  let sextant: Sextant;
  let client: Client;
  const search = (args: Record<string, unknown>) => callTool<SearchBody>(client, 'search_code', args);

  before(async () => {
    base = mkdtempSync(join(tmpdir(), 'sextant-qdrant-'));
    shop = makeRepository(base, 'shop', SHOP);
    qdrant = await startFakeQdrant({ apiKey: 'qdrant-key' });
    sextant = await startEmbedded({
      SEXTANT_WORKSPACE: shop,
      SEXTANT_PROGRESS_POLL_MS: '50',
      SEXTANT_INDEXING_STAGES: 'vectors',
      QDRANT_URL: process.env.TEST_QDRANT_URL ?? qdrant.url,
      QDRANT_API_KEY: process.env.TEST_QDRANT_URL ? process.env.TEST_QDRANT_API_KEY : 'qdrant-key',
      QDRANT_TIMEOUT_MS: '2000',
    });
    client = await httpClient(sextant.url);
    await indexed(client, 'index_repo', {});
  });
  after(async () => {
    await client?.close();
    await sextant?.stop();
    await qdrant?.close();
    rmSync(base, { recursive: true, force: true });
  });

  it('writes each chunk as a point with both vectors and a payload that says where it is from', (t) => {
    if (process.env.TEST_QDRANT_URL) return t.skip('reads the fake');
    const points = qdrant.points(COLLECTION);
    assert.ok(points.length >= 4, `${points.length} points`);
    const retry = points.find((p) => p.payload.path === 'src/webhooks/retry.ts')!;
    assert.deepEqual(
      [retry.payload.repo, retry.payload.dirs, typeof retry.payload.repository_id, retry.payload.language, retry.payload.start_line],
      ['shop', ['src/', 'src/webhooks/'], 'string', 'typescript', 1],
    );
    assert.equal((retry.vectors.dense as number[]).length, 256);
    const sparse = retry.vectors.lexical as { indices: number[]; values: number[] };
    assert.ok(sparse.indices.includes(termIndex(tokenize('webhooks')[0])), 'its words are in the sparse vector');
    assert.equal(sparse.indices.length, sparse.values.length);
  });

  it('finds code hybrid in one Query API call (prefetch of both vectors, weighted rrf), and each mode alone', async () => {
    const before = qdrant.exchanges.length;
    const found = await search({ query: 'where do we retry failed webhooks?' });
    assert.equal(found.isError, false, JSON.stringify(found.body));
    assert.equal(found.body.results[0].path, 'src/webhooks/retry.ts');
    assert.deepEqual([found.body.meta.mode, found.body.meta.collection], ['hybrid', COLLECTION]);
    const queries = qdrant.exchanges.slice(before).filter((e) => e.operation === 'query_points');
    if (!process.env.TEST_QDRANT_URL) {
      assert.equal(queries.length, 1);
      const body = queries[0].body as { prefetch: Array<{ using: string }>; query: { rrf: { k: number; weights: number[] } } };
      assert.deepEqual(
        body.prefetch.map((p) => p.using),
        ['lexical', 'dense'],
      );
      assert.deepEqual(body.query.rrf, { k: 61, weights: [1, 0.5] });
    }
    const lexical = await search({ query: 'InvoiceService taxFor', mode: 'lexical' });
    assert.equal(lexical.body.results[0].path, 'src/billing/invoice.ts');
    const semantic = await search({ query: 'retry failed webhooks', mode: 'semantic' });
    assert.equal(semantic.body.meta.mode, 'semantic');
    assert.ok(semantic.body.results.some((r) => r.path === 'src/webhooks/retry.ts'));
  });

  it('filters by pathPrefix, a folder or any prefix', async () => {
    for (const pathPrefix of ['src/webhooks/', 'src/web', 'docs/g']) {
      const found = await search({ query: 'retry webhooks', pathPrefix });
      assert.ok(found.body.results.length > 0, pathPrefix);
      assert.ok(
        found.body.results.every((r) => r.path.startsWith(pathPrefix)),
        `${pathPrefix}: ${found.body.results.map((r) => r.path).join(', ')}`,
      );
    }
  });

  it('follows sync_repo: an edit is found, a deleted file is gone from the results and from Qdrant', async () => {
    writeFileSync(join(shop, 'src/webhooks/dead-letter.ts'), 'export function moveToDeadLetterQueue(hook: string) {\n  return hook;\n}\n');
    unlinkSync(join(shop, 'src/billing/invoice.ts'));
    commitAll(shop);
    await indexed(client, 'sync_repo', {});
    const dlq = await search({ query: 'dead letter queue' });
    assert.equal(dlq.body.results[0].path, 'src/webhooks/dead-letter.ts');
    const invoice = await search({ query: 'InvoiceService taxFor', mode: 'lexical' });
    assert.ok(!invoice.body.results.some((r) => r.path === 'src/billing/invoice.ts'));
    if (!process.env.TEST_QDRANT_URL) {
      assert.ok(!qdrant.points(COLLECTION).some((p) => p.payload.path === 'src/billing/invoice.ts'), 'its points are deleted');
    }
  });

  it('returns points an older indexer wrote without `repo` as "(unknown)", with a warning', async (t) => {
    if (process.env.TEST_QDRANT_URL) return t.skip('seeds the fake');
    const word = tokenize('zorblaxify')[0];
    qdrant.seed(COLLECTION, [
      {
        id: 900_000_001,
        vectors: { dense: Array.from({ length: 256 }, (_, i) => (i === 0 ? 1 : 0)), lexical: { indices: [termIndex(word)], values: [1] } },
        payload: { repo_root: '/srv/old/shop', path: 'legacy/old.py', startLine: 3, endLine: 9, content: 'def zorblaxify(): pass' },
      },
    ]);
    const found = await search({ query: 'zorblaxify', mode: 'lexical' });
    const legacy = found.body.results.find((r) => r.path === 'legacy/old.py');
    assert.ok(legacy, JSON.stringify(found.body));
    assert.deepEqual([legacy.repo, legacy.startLine, legacy.snippet], ['(unknown)', 3, 'def zorblaxify(): pass']);
    assert.ok(
      found.body.meta.warnings?.some((w) => /without a "repo" payload/.test(w)),
      JSON.stringify(found.body.meta.warnings),
    );
  });

  it('answers `unavailable` while Qdrant is down, and searches again once it is back', async (t) => {
    if (process.env.TEST_QDRANT_URL) return t.skip('stops the fake');
    qdrant.down();
    try {
      const down = await search({ query: 'retry webhooks' });
      assert.equal(down.isError, true);
      const error = down.body as unknown as { error: string; message: string };
      assert.equal(error.error, 'unavailable', JSON.stringify(error));
      assert.match(error.message, /Qdrant could not search/);
      assert.doesNotMatch(JSON.stringify(error), /at .*\.js:\d+/, 'no stack trace');
    } finally {
      qdrant.up();
    }
    const back = await search({ query: 'retry webhooks' });
    assert.equal(back.isError, false, JSON.stringify(back.body));
  });

  it("spoke Qdrant's wire format: every request and answer matches Qdrant's published schema", (t) => {
    if (process.env.TEST_QDRANT_URL) return t.skip('the exchanges were with a real Qdrant');
    const operations = new Set(qdrant.exchanges.map((e) => e.operation));
    for (const op of ['collection_exists', 'create_collection', 'create_field_index', 'upsert_points', 'delete_points', 'query_points']) {
      assert.ok(operations.has(op), `${op} was exercised`);
    }
    assert.deepEqual(checkQdrantExchanges(qdrant.exchanges), []);
  });
});

describe("the fake Qdrant's schema check", () => {
  it('catches what Qdrant would refuse: an unknown field, a wrong type, a missing required field', () => {
    const errors = checkQdrantExchanges([
      { operation: 'query_points', query: {}, body: { query: [0.1], using: 'dense', limt: 10 }, status: 400, response: {} },
      { operation: 'upsert_points', query: { wait: 'yes' }, body: { points: [{ id: 1 }] }, status: 400, response: {} },
      {
        operation: 'create_collection',
        query: {},
        body: { vectors: { dense: { size: '8', distance: 'Cosine' } } },
        status: 400,
        response: {},
      },
      {
        operation: 'query_points',
        query: {},
        body: { filter: { must: [{ key: 'repo', match: { anyy: ['a'] } }] } },
        status: 400,
        response: {},
      },
    ]);
    const all = errors.join('\n');
    for (const expected of [
      /"limt"' does not exist/,
      /'vector' is missing/,
      /not assignable to type 'boolean/,
      /'string' is not assignable to type 'number'/,
      /"anyy"' does not exist/,
    ]) {
      assert.match(all, expected);
    }
  });
});
