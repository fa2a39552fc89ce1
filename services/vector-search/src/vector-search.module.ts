import { Module, type DynamicModule } from '@nestjs/common';
import { persistentCheckouts } from '@sextant/checkouts';
import { StageWorker } from '@sextant/jobs';
import { BUS_CLIENT, type BusClient } from '@sextant/messaging';
import { RegistryClient, Scopes } from '@sextant/registry-client';
import { ParsePool } from '@sextant/parsing';
import { Database, DatabaseModule } from '@sextant/persistence';
import { createHealthController, HEALTH_PROBES, ModuleLifecycle, serviceShard, stageLifecycle } from '@sextant/runtime';
import { AskService } from './answer/ask.service.js';
import { OpenAiChatModel } from './answer/chat-model.js';
import type { VectorSearchConfig } from './config.js';
import type { Embedder } from './embedding/embedder.js';
import { EndpointEmbedder } from './embedding/endpoint-embedder.js';
import { HashingEmbedder } from './embedding/hashing-embedder.js';
import { OnnxEmbedder } from './embedding/onnx-embedder.js';
import type { ChunkHookOptions } from './indexing/chunk-hook.js';
import { VectorStage } from './indexing/vector-stage.js';
import { MIGRATIONS, SCHEMA } from './migrations/index.js';
import { SearchController } from './search/search.controller.js';
import { SearchService } from './search/search.service.js';
import { ChunkStore } from './store/chunk-store.js';

export interface VectorSearchModuleOptions extends Omit<VectorSearchConfig, 'database'> {
  database: { url: string; poolSize: number; connectTimeoutMs: number };
}

/** The embedder this installation uses (the built-in one until an embeddings endpoint is configured). */
const EMBEDDER = Symbol('EMBEDDER');

/**
 * Search: the `vectors` stage of indexing jobs (chunks, lexemes and
 * embeddings of each changed file, over the bus in either mode) and the
 * tools search_code and ask_code, over its schema `vector_search`.
 */
@Module({})
export class VectorSearchModule {
  static register(config: VectorSearchModuleOptions): DynamicModule {
    const { policy, spawner, clones } = persistentCheckouts({ root: config.checkoutsDir, git: config.git, childEnv: config.childEnv });
    const builtIn = !config.embeddings && !config.localModel;
    const hook: ChunkHookOptions = { hashingDimension: builtIn ? config.hashingDimension : undefined };
    const pool = new ParsePool({
      threads: config.parseThreads,
      timeoutMs: config.fileTimeoutMs,
      maxBytes: config.maxFileBytes,
      // Lexemes and built-in embeddings are made in the parse workers, beside the chunks.
      chunkHook: { module: new URL('./indexing/chunk-hook.js', import.meta.url), options: hook },
    });
    return {
      module: VectorSearchModule,
      imports: [DatabaseModule.forService({ ...config.database, schema: SCHEMA, migrations: MIGRATIONS })],
      controllers: [SearchController, createHealthController('vector-search')],
      providers: [
        {
          provide: EMBEDDER,
          useFactory: (): Embedder =>
            config.embeddings
              ? new EndpointEmbedder(config.embeddings)
              : config.localModel
                ? new OnnxEmbedder(config.localModel)
                : new HashingEmbedder(config.hashingDimension),
        },
        {
          provide: ChunkStore,
          inject: [Database, EMBEDDER],
          useFactory: (db: Database, embedder: Embedder) => new ChunkStore(db, embedder, config.vectorStore),
        },
        {
          provide: RegistryClient,
          inject: [BUS_CLIENT], // A shard claims only the batches of its repositories (ADR 0027), so each repository is cloned by one shard.
          useFactory: (bus: BusClient) => new RegistryClient(bus, serviceShard('vector-search', config)),
        },
        {
          provide: SearchService,
          inject: [Database, ChunkStore, EMBEDDER, RegistryClient, BUS_CLIENT],
          useFactory: (db: Database, store: ChunkStore, embedder: Embedder, registry: RegistryClient, bus: BusClient) =>
            new SearchService({
              db,
              store,
              embedder,
              // What the collection holds of a repository the registry no longer knows is dropped when a search meets it.
              scopes: new Scopes(registry, bus, (ids) => store.purge(ids)),
              allowGlobalScope: config.allowGlobalScope,
              definitionWeight: config.definitionWeight,
              // A query waits for its embedding briefly, once: past that, search answers lexically (with a warning).
              queryEmbedding: { retries: 0, timeoutMs: config.embeddings?.queryTimeoutMs ?? 5_000 },
            }),
        },
        {
          provide: AskService,
          inject: [SearchService],
          useFactory: (search: SearchService) => new AskService(search, config.llm ? new OpenAiChatModel(config.llm) : undefined),
        },
        {
          provide: ModuleLifecycle,
          inject: [ChunkStore, EMBEDDER, RegistryClient],
          useFactory: (store: ChunkStore, embedder: Embedder, registry: RegistryClient) =>
            stageLifecycle({
              lockDirs: [config.checkoutsDir, ...(config.vectorStore.kind === 'local' ? [config.vectorStore.dir] : [])],
              // Two batches in hand: one is stored while the next is chunked. Claims long-poll at the registry, so no idle pause.
              worker: new StageWorker(registry, new VectorStage({ store, embedder, pool, clones, policy }), { concurrency: 2, idleMs: 10 }),
              pool,
              clones,
              spawner,
              // The first search does not wait for the collection and its search indexes: they load now, in the background.
              started: () => store.preload(),
              // The local search indexes are saved once the last batch is stored.
              closing: () => store.close(),
            }),
        },
        { provide: HEALTH_PROBES, inject: [Database], useFactory: (db: Database) => [db] },
      ],
    };
  }
}
