import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '@sextant/runtime';
import { loadConfig } from './config.js';

describe('vector-search settings', () => {
  it('uses the built-in embedder of 256 dimensions unless an endpoint is set', () => {
    const config = loadConfig({});
    assert.equal(config.embeddings, undefined);
    assert.equal(config.hashingDimension, 256);
  });

  it('takes an OpenAI-compatible endpoint with its model and dimension, and its batching and retry settings', () => {
    const config = loadConfig({
      EMBEDDINGS_URL: 'http://localhost:11434/v1',
      EMBEDDINGS_MODEL: 'nomic-embed-text',
      EMBEDDINGS_DIMENSIONS: '768',
      EMBEDDINGS_BATCH_SIZE: '32',
      EMBEDDINGS_RETRIES: '0',
    });
    assert.deepEqual(
      [
        config.embeddings?.url,
        config.embeddings?.model,
        config.embeddings?.dimension,
        config.embeddings?.batchSize,
        config.embeddings?.retries,
      ],
      ['http://localhost:11434/v1', 'nomic-embed-text', 768, 32, 0],
    );
    assert.deepEqual([config.embeddings?.concurrency, config.embeddings?.timeoutMs, config.embeddings?.queryTimeoutMs], [4, 30_000, 5_000]);
  });

  it('keeps vectors in Qdrant when QDRANT_URL is set, else in Postgres unless VECTOR_STORE says otherwise', () => {
    assert.deepEqual(loadConfig({}).vectorStore, { kind: 'postgres' });
    assert.deepEqual(loadConfig({ QDRANT_URL: 'http://qdrant:6333', QDRANT_API_KEY: 'k' }).vectorStore, {
      kind: 'qdrant',
      url: 'http://qdrant:6333',
      apiKey: 'k',
      timeoutMs: 10_000,
    });
    assert.equal(loadConfig({ QDRANT_URL: 'http://qdrant:6333', VECTOR_STORE: 'postgres' }).vectorStore.kind, 'postgres');
    assert.equal(loadConfig({ VECTOR_STORE: 'local' }).vectorStore.kind, 'local');
  });

  it('bounds the chunks the local indexes hold in memory by VECTOR_LOCAL_CHUNKS_MAX (default 1,000,000), refusing a bound below 1,000', () => {
    const local = (environment: NodeJS.ProcessEnv) => loadConfig({ VECTOR_STORE: 'local', ...environment }).vectorStore;
    assert.equal((local({}) as { maxChunks: number }).maxChunks, 1_000_000);
    assert.equal((local({ VECTOR_LOCAL_CHUNKS_MAX: '20000' }) as { maxChunks: number }).maxChunks, 20_000);
    assert.throws(() => local({ VECTOR_LOCAL_CHUNKS_MAX: '10' }), /VECTOR_LOCAL_CHUNKS_MAX/);
    assert.throws(() => local({ VECTOR_LOCAL_CHUNKS_MAX: 'many' }), /VECTOR_LOCAL_CHUNKS_MAX/);
  });

  it('bounds the pack of small repositories by VECTOR_LOCAL_PACK_CHUNKS (default 250,000; 0: no pack), refusing what is not a count', () => {
    const local = (environment: NodeJS.ProcessEnv) => loadConfig({ VECTOR_STORE: 'local', ...environment }).vectorStore;
    assert.equal((local({}) as { packChunks: number }).packChunks, 250_000);
    assert.equal((local({ VECTOR_LOCAL_PACK_CHUNKS: '0' }) as { packChunks: number }).packChunks, 0);
    assert.throws(() => local({ VECTOR_LOCAL_PACK_CHUNKS: '-1' }), /VECTOR_LOCAL_PACK_CHUNKS/);
    assert.throws(() => local({ VECTOR_LOCAL_PACK_CHUNKS: 'lots' }), /VECTOR_LOCAL_PACK_CHUNKS/);
  });

  it("weighs the definitions a query names at SEARCH_DEFINITION_WEIGHT (default 6; 0 leaves them out), refusing what is not a weight", () => {
    assert.equal(loadConfig({}).definitionWeight, 6);
    assert.equal(loadConfig({ SEARCH_DEFINITION_WEIGHT: '0' }).definitionWeight, 0);
    assert.throws(() => loadConfig({ SEARCH_DEFINITION_WEIGHT: '-1' }), /SEARCH_DEFINITION_WEIGHT.*>= 0/s);
    assert.throws(() => loadConfig({ SEARCH_DEFINITION_WEIGHT: 'heavy' }), /SEARCH_DEFINITION_WEIGHT/);
  });

  it('names what is missing or wrong', () => {
    const problems = (environment: NodeJS.ProcessEnv) => {
      try {
        loadConfig(environment);
      } catch (error) {
        assert.ok(error instanceof ConfigError, String(error));
        return error.message;
      }
      return 'no error';
    };
    assert.match(problems({ EMBEDDINGS_URL: 'http://e/v1', EMBEDDINGS_DIMENSIONS: '8' }), /EMBEDDINGS_DIMENSIONS/);
    assert.match(problems({ EMBEDDINGS_URL: 'http://e/v1', EMBEDDINGS_DIMENSIONS: '768' }), /EMBEDDINGS_MODEL .*go together/);
    assert.match(problems({ EMBEDDINGS_MODEL: 'm' }), /EMBEDDINGS_URL .*go together/);
    assert.match(
      problems({ EMBEDDINGS_URL: 'http://e/v1', EMBEDDINGS_MODEL: 'm' }),
      /EMBEDDINGS_DIMENSIONS is required with EMBEDDINGS_URL/,
    );
    assert.match(problems({ EMBEDDINGS_URL: 'ftp://e', EMBEDDINGS_MODEL: 'm', EMBEDDINGS_DIMENSIONS: '8' }), /EMBEDDINGS_URL/);
    assert.match(
      problems({ EMBEDDINGS_MODEL_DIR: '/m', EMBEDDINGS_URL: 'http://e/v1', EMBEDDINGS_MODEL: 'm', EMBEDDINGS_DIMENSIONS: '64' }),
      /set one of the two/,
    );
    assert.match(problems({ VECTOR_STORE: 'qdrant' }), /QDRANT_URL is required with VECTOR_STORE=qdrant/);
    assert.match(problems({ QDRANT_URL: 'qdrant:6333' }), /QDRANT_URL/);
    assert.match(problems({ VECTOR_STORE: 'milvus' }), /VECTOR_STORE/);
  });
});
