import { Module, type DynamicModule, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { BUS_CLIENT, type BusClient } from '@sextant/messaging';
import { ReadableRepositoryIds, RegistryClient } from '@sextant/registry-client';
import { createHealthController } from '@sextant/runtime';
import type { GitCacheConfig } from './config.js';
import { FileReader } from './files/file-reader.js';
import { GitCacheController } from './git-cache.controller.js';
import { GitCacheService } from './git-cache.service.js';
import { GitHubSearch } from './github/github-search.js';
import { createGrepEngine } from './grep/engine.js';
import { CloneCache, gitProtocols, ProcessGitRunner, LauncherSpawner, type Spawner } from '@sextant/checkouts';

/** Starts the clone cache with the module; at shutdown deletes this process's clones and stops the launcher. */
class CloneCacheLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(
    private readonly cache: CloneCache,
    private readonly spawner: Spawner,
  ) {}
  onModuleInit(): Promise<void> {
    return this.cache.start();
  }
  async onApplicationShutdown(): Promise<void> {
    await this.cache.stop();
    await this.spawner.close();
  }
}

/** Clone cache, grep, refs, GitHub search and safe file reads: grep_repository, list_repository_refs, search_repositories, open_file. */
@Module({})
export class GitCacheModule {
  static register(config: GitCacheConfig): DynamicModule {
    const protocols = gitProtocols(config.allowFileUrls);
    const spawner = new LauncherSpawner();
    const git = new ProcessGitRunner({ protocols, defaultTimeoutMs: config.cache.cloneTimeoutMs, baseEnv: config.childEnv, spawner });
    // Sharded (SEXTANT_SHARDS), each shard owns its repositories: stable clone names on its own volume, kept over restarts.
    const cache = new CloneCache({ ...config.cache, git, persistent: (config.shards['git-cache'] ?? 1) > 1, metricLabel: 'clones' });
    return {
      module: GitCacheModule,
      controllers: [createHealthController('git-cache'), GitCacheController],
      providers: [
        { provide: CloneCache, useValue: cache },
        { provide: CloneCacheLifecycle, useFactory: () => new CloneCacheLifecycle(cache, spawner) },
        {
          provide: GitCacheService,
          inject: [BUS_CLIENT],
          useFactory: async (bus: BusClient) =>
            new GitCacheService({
              cache,
              git,
              engine: await createGrepEngine(config.grep.engine, config.childEnv, spawner),
              github: new GitHubSearch({ ...config.github, backoffMs: 250 }),
              files: new FileReader(config.files),
              policy: {
                allowedHosts: config.allowedHosts,
                allowFileUrls: config.allowFileUrls,
                caseInsensitiveHosts: config.caseInsensitiveHosts,
              },
              grepTimeoutMs: config.grep.timeoutMs,
              grepMaxResultBytes: config.grep.maxResultBytes,
              lsRemoteTimeoutMs: Math.min(config.cache.cloneTimeoutMs, 30_000),
              registry: new RegistryClient(bus),
              readable: new ReadableRepositoryIds(bus),
              unregistered: config.unregisteredAccess,
            }),
        },
      ],
      exports: [CloneCache],
    };
  }
}
