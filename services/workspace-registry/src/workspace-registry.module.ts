import { Module, type DynamicModule } from '@nestjs/common';
import { persistentCheckouts } from '@sextant/checkouts';
import { JobStore } from '@sextant/jobs';
import { BUS_CLIENT, type BusClient } from '@sextant/messaging';
import { ReadableRepositoryIds } from '@sextant/registry-client';
import { Database, DatabaseModule } from '@sextant/persistence';
import { createHealthController, HEALTH_DETAILS, HEALTH_PROBES, ModuleLifecycle, type HealthDetails } from '@sextant/runtime';
import { observeIndexJobs } from '@sextant/telemetry';
import type { WorkspaceRegistryConfig } from './config.js';
import { AutoSync } from './indexing/auto-sync.js';
import { Coordinator } from './indexing/coordinator.js';
import { Discovery } from './indexing/discovery.js';
import { MIGRATIONS, SCHEMA } from './migrations/index.js';
import { RegistryController } from './registry/registry.controller.js';
import { Heads } from './registry/heads.js';
import { readHead, RegistryService } from './registry/registry.service.js';
import { RegistryStore } from './registry/registry.store.js';
import { MembershipMover, reconcileIdentities } from './registry/identities.js';
import { Workspaces } from './registry/workspaces.js';

/** Branch heads read at once in a background round (each a `git ls-remote`, or `rev-parse` of a workspace). */
const HEAD_READS_AT_ONCE = 4;
/** One head read's budget. */
const HEAD_READ_TIMEOUT_MS = 10_000;

/** A watched workspace is still walked whole this often: what a watcher may have missed (events the kernel dropped) is found. */
const WHOLE_WALK_EVERY_MS = 10 * 60_000;

export interface WorkspaceRegistryModuleOptions extends Omit<WorkspaceRegistryConfig, 'database'> {
  database: { url: string; poolSize: number; connectTimeoutMs: number };
}

/**
 * The workspace registry: repositories and workspaces, indexing jobs and
 * their progress (index_repo, index_repository, sync_repo, index_status,
 * get_index_job_status, list_repositories), in its schema `workspace_registry`.
 */
@Module({})
export class WorkspaceRegistryModule {
  static register(config: WorkspaceRegistryModuleOptions): DynamicModule {
    const { policy, spawner, git, clones } = persistentCheckouts({ root: config.checkoutsDir, git: config.git, childEnv: config.childEnv });
    // A watched workspace syncs itself this long after its last edit (SEXTANT_WATCH_SYNC_MS).
    const autoSync = new AutoSync(config.watchSyncMs);
    return {
      module: WorkspaceRegistryModule,
      imports: [DatabaseModule.forService({ ...config.database, schema: SCHEMA, migrations: MIGRATIONS })],
      controllers: [RegistryController, createHealthController('workspace-registry')],
      providers: [
        { provide: RegistryStore, inject: [Database], useFactory: (db: Database) => new RegistryStore(db) },
        { provide: JobStore, inject: [Database], useFactory: (db: Database) => new JobStore(db, SCHEMA) },
        {
          provide: Heads,
          inject: [RegistryStore],
          useFactory: (store: RegistryStore) =>
            new Heads({
              repositories: () => store.all(),
              read: (repository) => readHead(git, policy, repository, HEAD_READ_TIMEOUT_MS),
              intervalMs: config.headCacheMs,
              concurrency: HEAD_READS_AT_ONCE,
            }),
        },
        {
          provide: Workspaces,
          inject: [RegistryStore, JobStore],
          useFactory: (store: RegistryStore, jobs: JobStore) =>
            new Workspaces(store, {
              defaultWorkspace: config.defaultWorkspace,
              allowedRoots: config.allowedRoots,
              autoWorkspacesMax: config.autoWorkspacesMax,
              policy,
              // A removed repository's jobs end as skipped; its stage data goes when an indexer's answer next meets its id (Scopes).
              onRemoved: (id) => jobs.cancel(id, 'its workspace was removed from the registry'),
            }),
        },
        {
          provide: Discovery,
          inject: [RegistryStore],
          useFactory: (store: RegistryStore) =>
            new Discovery({
              git,
              clones,
              store,
              policy,
              maxFileBytes: config.maxFileBytes,
              watch: {
                maxDirectories: config.watchMaxDirectories,
                wholeWalkEveryMs: WHOLE_WALK_EVERY_MS,
                onChange: (id) => autoSync.changed(id),
              },
            }),
        },
        {
          provide: Coordinator,
          inject: [JobStore, RegistryStore, Discovery],
          useFactory: (jobs: JobStore, store: RegistryStore, discovery: Discovery) =>
            new Coordinator(jobs, store, discovery, {
              stages: config.stages,
              batchFiles: config.batchFiles,
              progressIntervalMs: config.progressIntervalMs,
              stageStallMs: config.stageStallMs,
              jobsAtOnce: config.jobsAtOnce,
            }),
        },
        {
          provide: RegistryService,
          inject: [RegistryStore, JobStore, Workspaces, Coordinator, Discovery, Heads, BUS_CLIENT],
          useFactory: (
            store: RegistryStore,
            jobs: JobStore,
            workspaces: Workspaces,
            coordinator: Coordinator,
            discovery: Discovery,
            heads: Heads,
            bus: BusClient,
          ) =>
            new RegistryService({
              store,
              jobs,
              workspaces,
              coordinator,
              policy,
              heads,
              readable: new ReadableRepositoryIds(bus),
              pending: (id) => discovery.pending(id),
            }),
        },
        {
          provide: ModuleLifecycle,
          inject: [Coordinator, JobStore, RegistryStore, Workspaces, RegistryService, Heads, BUS_CLIENT],
          useFactory: (
            coordinator: Coordinator,
            jobs: JobStore,
            store: RegistryStore,
            workspaces: Workspaces,
            service: RegistryService,
            heads: Heads,
            bus: BusClient,
          ) => {
            let unobserve: () => void = () => undefined;
            const mover = new MembershipMover(store, bus);
            return new ModuleLifecycle({
              lockDirs: [config.checkoutsDir],
              start: async () => {
                // Every stored repository at its identity as computed now; rows that meet are merged (ADR 0044).
                await reconcileIdentities(store, policy, (id) => jobs.cancel(id, 'it was merged into the same repository'));
                mover.start();
                // Listed from the start (list_repositories), indexed on first use.
                await workspaces.registerDefault();
                await clones.start();
                coordinator.start();
                autoSync.start((id) => service.syncChanged(id));
                heads.start();
                unobserve = observeIndexJobs(() => jobs.queue());
              },
              stop: async () => {
                autoSync.stop();
                mover.stop();
                await heads.stop();
                unobserve();
                await coordinator.stop();
                await clones.stop();
                await spawner.close();
              },
            });
          },
        },
        { provide: HEALTH_PROBES, inject: [Database], useFactory: (db: Database) => [db] },
        {
          provide: HEALTH_DETAILS,
          inject: [RegistryService],
          useFactory: (service: RegistryService): HealthDetails => ({
            details: async () => {
              const report = await service.health();
              return { ...report, status: report.workspaces.some((w) => w.index_status === 'indexing') ? 'indexing' : 'ready' };
            },
          }),
        },
      ],
    };
  }
}
