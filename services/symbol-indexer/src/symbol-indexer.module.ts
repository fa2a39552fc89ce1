import { Module, type DynamicModule } from '@nestjs/common';
import { persistentCheckouts } from '@sextant/checkouts';
import { StageWorker } from '@sextant/jobs';
import { BUS_CLIENT, type BusClient } from '@sextant/messaging';
import { ReadableRepositoryIds, RegistryClient, Scopes } from '@sextant/registry-client';
import { ParsePool } from '@sextant/parsing';
import { Database, DatabaseModule } from '@sextant/persistence';
import { createHealthController, HEALTH_PROBES, ModuleLifecycle, serviceShard, stageLifecycle } from '@sextant/runtime';
import type { SymbolIndexerConfig } from './config.js';
import { MIGRATIONS, SCHEMA } from './migrations/index.js';
import { SymbolController } from './symbols/tools/symbol.controller.js';
import { SymbolService } from './symbols/tools/symbol.service.js';
import { DependencyService } from './symbols/tools/dependency.service.js';
import { BindingFacts } from './symbols/binding/binding-facts.js';
import { SourceLines } from './symbols/tools/source-lines.js';
import { SymbolStage } from './symbols/index/symbol-stage.js';
import { SymbolStore } from './symbols/index/symbol.store.js';
import { PreciseAnswers } from './symbols/precise/precise-answers.js';
import { PreciseStage } from './symbols/precise/precise-stage.js';
import { PreciseStore } from './symbols/precise/precise.store.js';
import { ScipUploadController } from './symbols/precise/scip-upload.controller.js';
import { ScipUploads } from './symbols/precise/scip-upload.js';

export interface SymbolIndexerModuleOptions extends Omit<SymbolIndexerConfig, 'database'> {
  database: { url: string; poolSize: number; connectTimeoutMs: number };
}

/**
 * The symbol indexer: the `symbols` and `precise` stages of indexing jobs (it
 * takes batches from the registry over the bus, in either mode) and the symbol
 * tools, over its schema `symbol_indexer`.
 */
@Module({})
export class SymbolIndexerModule {
  static register(config: SymbolIndexerModuleOptions): DynamicModule {
    const { policy, spawner, clones } = persistentCheckouts({ root: config.checkoutsDir, git: config.git, childEnv: config.childEnv });
    const pool = new ParsePool({ threads: config.parseThreads, timeoutMs: config.fileTimeoutMs, maxBytes: config.maxFileBytes });
    return {
      module: SymbolIndexerModule,
      imports: [DatabaseModule.forService({ ...config.database, schema: SCHEMA, migrations: MIGRATIONS })],
      controllers: [SymbolController, ScipUploadController, createHealthController('symbol-indexer')],
      providers: [
        { provide: SymbolStore, inject: [Database], useFactory: (db: Database) => new SymbolStore(db) },
        { provide: PreciseStore, inject: [Database], useFactory: (db: Database) => new PreciseStore(db) },
        // Facts derived from the index (the type hierarchy, declared types, files' imports), kept while it does not change.
        { provide: BindingFacts, inject: [SymbolStore], useFactory: (store: SymbolStore) => new BindingFacts(store) },
        {
          provide: RegistryClient,
          inject: [BUS_CLIENT], // A shard claims only the batches of its repositories (ADR 0027), so each repository is cloned by one shard.
          useFactory: (bus: BusClient) => new RegistryClient(bus, serviceShard('symbol-indexer', config)),
        },
        {
          provide: Scopes,
          inject: [RegistryClient, BUS_CLIENT, SymbolStore, PreciseStore],
          // What the index holds of a repository the registry no longer knows (an evicted workspace) is dropped when an answer meets it.
          useFactory: (registry: RegistryClient, bus: BusClient, store: SymbolStore, precise: PreciseStore) =>
            new Scopes(registry, bus, async (ids) => {
              await store.purge(ids);
              await precise.purge(ids);
            }),
        },
        {
          provide: SymbolService,
          inject: [SymbolStore, Scopes, BindingFacts, PreciseStore],
          useFactory: (store: SymbolStore, scopes: Scopes, facts: BindingFacts, precise: PreciseStore) =>
            new SymbolService(
              store,
              scopes,
              new SourceLines({ clones, policy, maxBytes: config.maxFileBytes }),
              facts,
              pool,
              new PreciseAnswers(precise, store),
            ),
        },
        {
          provide: ScipUploads,
          inject: [Database, PreciseStore, RegistryClient, BUS_CLIENT],
          useFactory: (db: Database, store: PreciseStore, registry: RegistryClient, bus: BusClient) =>
            new ScipUploads({
              db,
              store,
              registry,
              access: new ReadableRepositoryIds(bus),
              limits: { maxBytes: config.precise.maxIndexBytes, maxOccurrences: config.precise.maxOccurrences },
            }),
        },
        {
          provide: DependencyService,
          inject: [SymbolStore, Scopes, BindingFacts, PreciseStore],
          useFactory: (store: SymbolStore, scopes: Scopes, facts: BindingFacts, precise: PreciseStore) =>
            new DependencyService(store, scopes, facts, new PreciseAnswers(precise, store)),
        },
        {
          provide: ModuleLifecycle,
          inject: [SymbolStore, PreciseStore, RegistryClient],
          useFactory: (store: SymbolStore, preciseStore: PreciseStore, registry: RegistryClient) => {
            // Two batches in hand: one is stored while the next is parsed. Claims long-poll at the registry, so no idle pause.
            const symbols = new StageWorker(registry, new SymbolStage({ store, pool, clones, policy }), { concurrency: 2, idleMs: 10 });
            const stage = new PreciseStage({ store: preciseStore, clones, policy, spawner, env: config.childEnv, limits: config.precise });
            // One batch at a time: the batch that takes a job's run holds it for the indexer's whole run.
            const precise = new StageWorker(registry, stage, { idleMs: 10 });
            return stageLifecycle({
              lockDirs: [config.checkoutsDir],
              worker: {
                start: () => {
                  symbols.start();
                  precise.start();
                },
                stop: () => {
                  stage.stop();
                  return Promise.all([symbols.stop(), precise.stop()]);
                },
              },
              pool,
              clones,
              spawner,
            });
          },
        },
        { provide: HEALTH_PROBES, inject: [Database], useFactory: (db: Database) => [db] },
      ],
    };
  }
}
