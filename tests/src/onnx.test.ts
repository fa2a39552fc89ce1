/**
 * A local embedding model (EMBEDDINGS_MODEL_DIR) through
 * @huggingface/transformers on ONNX Runtime: no weights can be downloaded
 * here, so the test writes a tiny model (a WordPiece tokenizer and an ONNX
 * graph that looks tokens up in a table) whose vectors it can compute on
 * its own, then checks the embedder's, and search over MCP with it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  callTool,
  git,
  httpClient,
  startEmbedded,
  writeTinyEmbeddingModel,
  writeTree,
  type Sextant,
  type TinyModel,
} from '@sextant/testing';
import { OnnxEmbedder } from '@sextant/vector-search';

const WORDS = ['retry', 'failed', 'webhooks', 'invoice', 'tax', 'total', 'export', 'function', 'class', 'return', 'send', 'url'];

/** The tiny model's vector of a text: the mean of its tokens' rows ([CLS], words or [UNK], [SEP]), normalized. */
function expected(model: TinyModel, text: string): Float32Array {
  const ids = [
    2,
    ...text
      .toLowerCase()
      .split(/\W+/)
      .filter(Boolean)
      .map((w) => model.vocab.get(w) ?? 1),
    3,
  ];
  const sum = new Float32Array(model.dimension);
  for (const id of ids) model.table[id].forEach((v, j) => (sum[j] += v / ids.length));
  const norm = Math.hypot(...sum);
  return sum.map((v) => v / norm);
}

describe('a local ONNX embedding model (EMBEDDINGS_MODEL_DIR)', () => {
  let base: string;
  let dir: string;
  let model: TinyModel;

  before(() => {
    base = mkdtempSync(join(tmpdir(), 'sextant-onnx-'));
    dir = join(base, 'tiny-minilm');
    model = writeTinyEmbeddingModel(dir, WORDS, 16);
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  it("embeds with the model's tokenizer and graph: mean-pooled, normalized, batch by batch, in order", async () => {
    const embedder = new OnnxEmbedder({ dir, batchSize: 2, maxChars: 8_000, threads: 1 });
    assert.deepEqual([embedder.model, embedder.dimension, embedder.kind], ['tiny-minilm', 16, 'semantic']);
    const texts = ['retry failed webhooks', 'invoice tax total', 'send url', 'retry failed webhooks', 'zebra'];
    const vectors = await embedder.embed(texts);
    assert.equal(vectors.length, texts.length);
    texts.forEach((text, i) => {
      const want = expected(model, text);
      assert.ok(
        want.every((v, j) => Math.abs(v - vectors[i][j]) < 1e-5),
        `${text}: ${Array.from(vectors[i]).slice(0, 4).join(',')} vs ${Array.from(want).slice(0, 4).join(',')}`,
      );
    });
  });

  it('refuses a directory without a model, naming what is missing', () => {
    assert.throws(() => new OnnxEmbedder({ dir: base, batchSize: 8, maxChars: 100 }), /EMBEDDINGS_MODEL_DIR .* has no config\.json/);
  });

  describe('search over MCP with it (embedded)', () => {
    let sextant: Sextant;
    let repo: string;

    before(async () => {
      repo = join(base, 'shop');
      writeTree(repo, {
        'src/retry.ts': 'export function retry(failed: string[]) {\n  return failed.map(send);\n}\n',
        'src/invoice.ts': 'export class Invoice {\n  total() {\n    return tax;\n  }\n}\n',
      });
      git(repo, 'init', '-q', '--initial-branch=main');
      git(repo, 'add', '-A');
      git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'shop');
      sextant = await startEmbedded({ SEXTANT_WORKSPACE: repo, SEXTANT_INDEXING_STAGES: 'vectors', EMBEDDINGS_MODEL_DIR: dir });
    });
    after(() => sextant?.stop());

    it("indexes into the model's collection and finds code by meaning", async () => {
      const client = await httpClient(sextant.url);
      try {
        const job = await client.callTool({ name: 'index_repo', arguments: {} }, undefined, { onprogress: () => undefined });
        assert.equal((job.structuredContent as { status: string }).status, 'completed', JSON.stringify(job.structuredContent));
        const found = await callTool<{ results: Array<{ path: string }>; meta: { collection: string; mode: string } }>(
          client,
          'search_code',
          {
            query: 'invoice tax total',
            mode: 'semantic',
          },
        );
        assert.equal(found.isError, false, JSON.stringify(found.body));
        assert.deepEqual([found.body.meta.collection, found.body.meta.mode], ['tiny_minilm_16', 'semantic']);
        assert.equal(found.body.results[0].path, 'src/invoice.ts');
      } finally {
        await client.close();
      }
    });
  });
});
