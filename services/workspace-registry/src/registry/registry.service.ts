import type {
  BatchFile,
  GetIndexJobStatus,
  IndexRepo,
  IndexRepository,
  IndexStatus,
  ClaimBatch,
  ListRepositories,
  RegisteredRepository,
  SettleBatch,
  RepositoryFreshness,
  ResolveRepositories,
  ResolveWorkspace,
  SyncRepo,
  WorkspaceHealth,
} from '@sextant/contracts';
import { repositoryShardKey, shardOf } from '@sextant/contracts';
import { parseRepository, type GitRunner, type LocatorPolicy, type WatchedChanges } from '@sextant/checkouts';
import type { Job, JobMode, JobStore } from '@sextant/jobs';
import type { ReadableRepositoryIds } from '@sextant/registry-client';
import { ServiceError } from '@sextant/work';
import type { SyncOutcome } from '../indexing/auto-sync.js';
import type { Coordinator } from '../indexing/coordinator.js';
import { messages } from '../indexing/progress.js';
import type { Heads } from './heads.js';
import type { RegistryStore, Repository } from './registry.store.js';
import { remoteLocator, type Resolved, type Workspaces } from './workspaces.js';

export interface RegistryServiceDeps {
  store: RegistryStore;
  jobs: JobStore;
  workspaces: Workspaces;
  coordinator: Pick<Coordinator, 'wake' | 'batchesQueued'>;
  policy: LocatorPolicy;
  /** Branch heads, read in the background (never on a request's path). */
  heads: Pick<Heads, 'of'>;
  /** The repositories the request's caller may read (issue #13): the others are left out, or answer like missing ones. */
  readable: Pick<ReadableRepositoryIds, 'readable' | 'maintained'>;
  /** What a watcher saw change in a workspace since its index was made (Discovery's watches); undefined: not watched. */
  pending?: (repositoryId: string) => WatchedChanges | undefined;
}

/** Changed paths a freshness answer names, at most. */
const CHANGED_PATHS_MAX = 20;

/** A name given beside `localPath` that is not the repository's (its directory's): not used, and the answer says so. */
function unusedName(input: IndexRepository.Request, repository: Repository): { notes?: string[] } {
  const { localPath, repository: name } = input;
  if (localPath === undefined || name === undefined || [repository.name, repository.locator, localPath].includes(name)) return {};
  return {
    notes: [
      `repository "${name}" is not used: a local repository is named after its directory, "${repository.name}" (tools also take its path or id)`,
    ],
  };
}

/** What a call that starts a job answers: its id under the vocabulary's name and under the name this tool first used. */
function started(job: Job): IndexRepository.Response {
  return { job_id: job.id, runId: job.id, status: 'pending' };
}

/** Bumped when what a job writes changes incompatibly; reported in /health. */
const INDEX_SCHEMA_VERSION = 1;

const RECOVERY_ACTION = 'run sync_repo or index_repo for the affected workspace';

/** The workspace-registry tools, over the registry store, the job store and workspace resolution. */
export class RegistryService {
  constructor(private readonly deps: RegistryServiceDeps) {}

  async indexRepo(input: IndexRepo.Request): Promise<IndexRepo.Response> {
    const { repository, discovered } = await this.resolve(input.workspace);
    await this.mayMaintain(repository, input.workspace);
    const mode: JobMode = input.force || repository.indexedCommit === null ? 'full' : 'incremental';
    return this.describe(repository, await this.start(repository, mode, { force: input.force }), discovered);
  }

  async syncRepo(input: SyncRepo.Request): Promise<SyncRepo.Response> {
    const { repository, discovered } = await this.resolve(input.workspace);
    await this.mayMaintain(repository, input.workspace);
    return this.describe(repository, await this.start(repository, repository.lastIndexedAt ? 'incremental' : 'full', {}), discovered);
  }

  async indexRepository(input: IndexRepository.Request): Promise<IndexRepository.Response> {
    // The contract holds one of the two; a local path names the repository (its directory): a repository beside it that
    // names another is not used, and the answer says so (callers that sent any name there before keep working).
    const reference = input.localPath ?? input.repository!;
    // A registered repository is re-indexed by a maintainer of one of its projects; a new URL by any maintainer (who
    // then adds it to a project); a new directory of this server's disk by an admin.
    const found = await this.lookUp(reference);
    // One the caller may not read is, for it, not registered: what follows answers as for a new one.
    const readable = await this.deps.readable.readable();
    const existing = found && (!readable || readable.has(found.id)) ? found : undefined;
    if (existing) await this.mayMaintain(existing, reference);
    else if (input.localPath && (await this.deps.readable.maintained())) {
      throw ServiceError.of('forbidden', 'Registering a directory of the server needs an org-wide admin.', { localPath: input.localPath });
    }
    const answer = (job: Job, repository: Repository): IndexRepository.Response => ({ ...started(job), ...unusedName(input, repository) });
    if (found && !existing) {
      // A hidden remote, named by a URL (anything else is refused as it would be unregistered): its branch is its
      // projects' to choose, so it is indexed as it is, and the caller gets a run id as for a URL it registers.
      remoteLocator(reference, this.deps.policy);
      return answer(await this.start(found, found.lastIndexedAt ? 'incremental' : 'full', {}), found);
    }
    const repository = input.localPath
      ? await this.deps.workspaces.registerLocal(input.localPath)
      : await this.deps.workspaces.registerRemote(reference, input.ref);
    return answer(await this.start(repository, repository.lastIndexedAt ? 'incremental' : 'full', {}), repository);
  }

  async indexStatus(input: IndexStatus.Request): Promise<IndexStatus.Response> {
    const { repository, discovered } = await this.resolve(input.workspace);
    await this.mayRead(repository.id, () =>
      ServiceError.of('not_found', `No registered repository is "${input.workspace ?? 'the default workspace'}".`, {
        workspace: input.workspace,
      }),
    );
    // A workspace this call registered starts indexing, as with every tool that names one.
    if (discovered) await this.start(repository, 'full', {});
    const active = await this.deps.jobs.active(repository.id);
    const report = await this.recoveryReport(repository.id);
    return {
      ...(discovered ? { indexing_status: 'indexing' as const, result_completeness: 'partial' as const } : {}),
      project_id: repository.id,
      repo_root: repository.locator,
      index_status: active ? 'indexing' : repository.status,
      ...(active ? { active_job: activeJob(active) } : {}),
      ...(report ? { interrupted_recovery_report: report } : {}),
    };
  }

  async jobStatus(input: GetIndexJobStatus.Request): Promise<GetIndexJobStatus.Response> {
    // `job_id` arrives as `runId`, its alias (the vocabulary, docs/vocabulary.md).
    const job = await this.deps.jobs.get(input.runId);
    const missing = () => ServiceError.of('not_found', `No indexing job "${input.runId}".`, { runId: input.runId });
    if (!job) throw missing();
    // A job of a repository the caller may not read answers like one that does not exist.
    await this.mayRead(job.key, missing);
    const repository = await this.deps.store.find(job.key);
    const name = repository?.name ?? job.key;
    return {
      job_id: job.id,
      runId: job.id,
      status: job.status,
      repository_id: job.key,
      ref: repository?.ref ?? null,
      started_at: iso(job.startedAt),
      completed_at: iso(job.completedAt),
      error_message: job.errorMessage,
      stats: {
        files_indexed: job.stats.files_indexed ?? 0,
        symbols_extracted: job.stats.symbols_extracted ?? 0,
        references_extracted: job.stats.references_extracted ?? 0,
        ...(job.stats.files_scanned !== undefined ? { files_scanned: job.stats.files_scanned } : {}),
        ...(job.stats.files_skipped !== undefined ? { files_skipped: job.stats.files_skipped } : {}),
        ...(job.stats.chunks_indexed !== undefined ? { chunks_indexed: job.stats.chunks_indexed } : {}),
      },
      ...warningsOf(job.stats),
      progress: { stage: job.stage, percentage: job.percent, message: job.message, title: title(job, name) },
      timings_ms: {
        ...(job.stats.discovery_ms !== undefined ? { discovery: job.stats.discovery_ms } : {}),
        ...(job.stats.finalizing_ms !== undefined ? { finalizing: job.stats.finalizing_ms } : {}),
      },
      retry_count: job.retryCount,
      created_at: job.createdAt.toISOString(),
    };
  }

  async listRepositories(input: ListRepositories.Request): Promise<ListRepositories.Response> {
    const readable = await this.deps.readable.readable();
    const { repositories, total } = await this.deps.store.list(input.limit, readable && [...readable]);
    const heads = this.currentHeads(repositories);
    return {
      repositories: repositories.map((r) => {
        const head = heads.get(r.id);
        return {
          id: r.id,
          name: r.name,
          url: r.kind === 'remote' ? r.locator : null,
          repo_root: r.kind === 'local' ? r.locator : null,
          default_branch: r.kind === 'remote' ? r.ref : r.indexedRef,
          index_status: r.status,
          indexed_commit: r.indexedCommit,
          last_indexed_at: iso(r.lastIndexedAt),
          behind_head: r.indexedCommit === null || head === undefined || head === null ? null : head !== r.indexedCommit,
        };
      }),
      total,
      truncated: total > repositories.length,
    };
  }

  /** Other services' lookups: each reference (id, name, locator, or a URL form of one) → its repository, or null. */
  async resolveRepositories(input: ResolveRepositories.Request): Promise<ResolveRepositories.Response> {
    const repositories = await this.lookUpAll(input.references);
    return { repositories: repositories.map((r) => (r ? registered(r) : null)) };
  }

  /**
   * Other services' freshness question: each id → its indexed commit, whether the branch head moved past it (heads
   * cached), its indexing status, and the edits a watcher saw in a workspace since its index was made.
   */
  async freshness(input: RepositoryFreshness.Request): Promise<RepositoryFreshness.Response> {
    const found = await this.deps.store.findMany(input.ids);
    const known = found.filter((r): r is Repository => r !== undefined);
    const heads = this.currentHeads(known);
    const statuses = await this.indexStatuses(known);
    return {
      repositories: found.map((r) => {
        if (!r) return null;
        const head = heads.get(r.id);
        const pending = r.kind === 'local' && r.indexedCommit !== null ? this.deps.pending?.(r.id) : undefined;
        const paths = pending && 'paths' in pending ? pending.paths : [];
        return {
          id: r.id,
          indexed_commit: r.indexedCommit,
          behind_head: r.indexedCommit === null || head === undefined || head === null ? null : head !== r.indexedCommit,
          index_status: statuses.get(r.id) ?? r.status,
          dirty: pending === undefined ? null : 'missed' in pending || paths.length > 0,
          changed_paths: paths.slice(0, CHANGED_PATHS_MAX),
        };
      }),
    };
  }

  /** `indexing` for repositories never indexed whose first job is queued (their row says so once Discovery begins). */
  private async indexStatuses(repositories: readonly Repository[]): Promise<Map<string, 'indexing'>> {
    const waiting = repositories.filter((r) => r.status === 'not_indexed');
    const active = await Promise.all(waiting.map((r) => this.deps.jobs.active(r.id)));
    return new Map(waiting.filter((_, i) => active[i]).map((r) => [r.id, 'indexing' as const]));
  }

  /**
   * A tool's `workspace`, resolved for another service with the rules (and errors) of tools.md. A workspace never
   * indexed (the default one on first use, one auto-discovered now) starts indexing: its answers say so.
   */
  async resolveWorkspace(input: ResolveWorkspace.Request): Promise<ResolveWorkspace.Response> {
    const { repository, discovered } = await this.resolve(input.workspace);
    if (discovered || (repository.status === 'not_indexed' && repository.indexedCommit === null)) {
      await this.start(repository, 'full', {});
    }
    return { repository: registered(repository), discovered };
  }

  /**
   * A watched workspace changed (`AutoSync`): an incremental job, unless one is running, whose discovery may have
   * begun before the change ('busy': ask again later); a repository gone meanwhile is left alone.
   */
  async syncChanged(repositoryId: string): Promise<SyncOutcome> {
    const repository = await this.deps.store.find(repositoryId);
    if (!repository) return 'gone';
    const active = await this.deps.jobs.active(repositoryId);
    if (active?.status === 'running') return 'busy';
    await this.start(repository, repository.lastIndexedAt ? 'incremental' : 'full', {});
    return 'started';
  }

  /**
   * A stage worker takes the next batch of its stage (any service, any
   * replica), with the repository and commit it needs to read the files.
   * A batch of a job whose repository is gone is failed at once.
   */
  async claimBatch(input: ClaimBatch.Request): Promise<ClaimBatch.Response> {
    const deadline = Date.now() + input.wait_ms;
    for (;;) {
      const jobIds = input.shard ? await this.jobsOfShard(input.stage, input.shard) : undefined;
      const batch = await this.deps.jobs.claimBatch(input.stage, input.owner, input.lease_ms, jobIds);
      if (!batch) {
        // Long poll: this replica's coordinator says when it queues batches (another replica's show up at the next claim).
        if (Date.now() >= deadline || !(await this.deps.coordinator.batchesQueued(deadline - Date.now()))) return { batch: null };
        continue;
      }
      const job = await this.deps.jobs.get(batch.jobId);
      const repository = job && (await this.deps.store.find(job.key));
      if (!job || !repository) {
        await this.deps.jobs.failBatch(batch.id, input.owner, 'the repository of this job was removed', 1);
        continue;
      }
      return {
        batch: {
          id: batch.id,
          job_id: batch.jobId,
          stage: batch.stage,
          attempts: batch.attempts,
          files: batch.items as BatchFile[],
          repository: registered(repository),
          commit: typeof job.params.commit === 'string' ? job.params.commit : null,
        },
      };
    }
  }

  /**
   * The running jobs with batches of `stage` whose repository hashes to
   * `shard` (ADR 0027); a job whose repository is gone goes to every shard,
   * so that one of them fails its batch.
   */
  private async jobsOfShard(stage: string, shard: { index: number; count: number }): Promise<string[]> {
    const jobs = await this.deps.jobs.claimableJobs(stage);
    const repositories = await Promise.all(jobs.map((job) => this.deps.store.find(job.key)));
    return jobs
      .filter((_, i) => {
        const repository = repositories[i];
        return !repository || shardOf(repositoryShardKey(repository.locator), shard.count) === shard.index;
      })
      .map((job) => job.id);
  }

  /**
   * Unless the caller maintains a project holding `repository` (or is an
   * admin): `not_found` when it may not even read it, else `forbidden`.
   */
  private async mayMaintain(repository: Repository, reference: string | undefined): Promise<void> {
    const maintained = await this.deps.readable.maintained();
    if (!maintained || maintained.has(repository.id)) return;
    await this.mayRead(repository.id, () =>
      ServiceError.of('not_found', `No registered repository is "${reference ?? 'the default workspace'}".`, { repository: reference }),
    );
    throw ServiceError.of('forbidden', `Indexing ${repository.name} needs a maintainer of one of its projects (or an admin).`, {
      repository: repository.name,
    });
  }

  /** A tool's `workspace` as its caller may see it (Workspaces.resolve). */
  private async resolve(workspace: string | undefined): Promise<Resolved> {
    return this.deps.workspaces.resolve(workspace, await this.deps.readable.readable());
  }

  /** Throws `missing()` unless the request's caller may read repository `id`. */
  private async mayRead(id: string, missing: () => ServiceError): Promise<void> {
    const readable = await this.deps.readable.readable();
    if (readable && !readable.has(id)) throw missing();
  }

  async settleBatch(input: SettleBatch.Request): Promise<SettleBatch.Response> {
    const { jobs } = this.deps;
    switch (input.action) {
      case 'renew':
        return { ok: await jobs.renewBatch(input.id, input.owner, input.lease_ms) };
      case 'complete':
        return { ok: await jobs.completeBatch(input.id, input.owner, input.result) };
      case 'fail': {
        const status = await jobs.failBatch(input.id, input.owner, input.error, input.max_attempts);
        return { ok: status !== undefined, status: status ?? null };
      }
    }
  }

  /** By id or name, else by identity (ADR 0044): any spelling of a registered repository's URL or path is that repository. */
  private async lookUp(reference: string): Promise<Repository | undefined> {
    return (await this.lookUpAll([reference]))[0];
  }

  /** By id, name or locator (ids in one query), else as another spelling of a registered URL; in order. */
  private async lookUpAll(references: readonly string[]): Promise<Array<Repository | undefined>> {
    const found = await this.deps.store.findMany(references);
    return Promise.all(found.map(async (r, i) => r ?? (await this.deps.workspaces.registeredAt(references[i]))));
  }

  /** The registry's part of the health report: one entry per workspace, and the interrupted jobs. */
  async health(): Promise<{
    workspaces: WorkspaceHealth[];
    interrupted_recovery_report?: IndexStatus.Response['interrupted_recovery_report'];
  }> {
    // The caller's repositories only (health_check runs for its caller; the gateway's own checks see all).
    const readable = await this.deps.readable.readable();
    const repositories = (await this.deps.store.all()).filter((r) => !readable || readable.has(r.id));
    const report = await this.recoveryReport(undefined);
    return {
      workspaces: repositories.map((r) => ({
        project_id: r.id,
        repo_root: r.locator,
        index_status: r.status === 'failed' ? 'error' : r.status,
        schema_status: r.status === 'not_indexed' ? 'not_indexed' : 'compatible',
        current_schema_version: r.lastIndexedAt ? INDEX_SCHEMA_VERSION : 0,
        required_schema_version: INDEX_SCHEMA_VERSION,
        last_indexed_at: iso(r.lastIndexedAt),
        ref: r.indexedRef ?? r.ref,
        file_count: r.fileCount,
        symbol_count: r.symbolCount,
      })),
      ...(report ? { interrupted_recovery_report: report } : {}),
    };
  }

  private async start(repository: Repository, mode: JobMode, params: Record<string, unknown>): Promise<Job> {
    // After an interrupted job, whose stages may have written part of their files, the next one re-indexes every file:
    // what the index holds and what the registry counts agree again.
    const recovering = (await this.deps.jobs.interrupted(repository.id)).count > 0;
    // A job reports from its creation on: queued is Discovery at 0 %.
    const { job, created } = await this.deps.jobs.create(repository.id, {
      kind: 'index',
      mode: recovering ? 'full' : mode,
      params: recovering ? { ...params, force: true } : params,
      stage: 'discovery',
      message: messages.discovery(0),
    });
    if (created) this.deps.coordinator.wake();
    return job;
  }

  private describe(repository: Repository, job: Job, discovered: boolean): IndexRepo.Response {
    return {
      job_id: job.id,
      runId: job.id,
      progress_token: progressToken(job.id),
      status: job.status,
      mode: job.mode,
      file_count: repository.fileCount,
      ...(discovered ? { indexing_status: 'indexing' as const } : {}),
    };
  }

  private async recoveryReport(key: string | undefined) {
    const { count, last } = await this.deps.jobs.interrupted(key);
    if (count === 0) return undefined;
    return { detected: true, interrupted_jobs: count, last_interrupted_at: iso(last), recommended_action: RECOVERY_ACTION };
  }

  /** The newest head known of each repository's branch (`Heads`: read in the background; unknown → null). */
  private currentHeads(repositories: readonly Repository[]): Map<string, string | null> {
    return new Map(repositories.filter((r) => r.indexedCommit !== null).map((r) => [r.id, this.deps.heads.of(r) ?? null]));
  }
}

/**
 * The commit a repository's branch points at now: `git rev-parse HEAD` of a local workspace, `git ls-remote` of a
 * remote one (its ref, else HEAD). What `Heads` reads in the background.
 */
export async function readHead(git: GitRunner, policy: LocatorPolicy, repository: Repository, timeoutMs: number): Promise<string | null> {
  if (repository.kind === 'local') {
    return (await git.run(['rev-parse', '--verify', '-q', 'HEAD'], { cwd: repository.locator, timeoutMs })).trim() || null;
  }
  const url = parseRepository(repository.locator, policy).url;
  const ref = repository.ref ?? repository.indexedRef;
  const output = await git.run(['ls-remote', url, ...(ref ? [`refs/heads/${ref}`, `refs/tags/${ref}`] : ['HEAD'])], { timeoutMs });
  const lines = output.split('\n').filter(Boolean);
  // An annotated tag is listed twice; the peeled line (`^{}`) holds the commit.
  return (lines.find((l) => l.endsWith('^{}')) ?? lines[0])?.slice(0, 40) || null;
}

function registered(r: Repository): RegisteredRepository {
  return { id: r.id, name: r.name, kind: r.kind, locator: r.locator, ref: r.ref };
}

function progressToken(jobId: string): string {
  return `index-job-${jobId}`;
}

function activeJob(job: Job): NonNullable<IndexStatus.Response['active_job']> {
  return {
    job_id: job.id,
    progress_token: progressToken(job.id),
    mode: job.mode,
    status: job.status,
    files_scanned: job.stats.files_scanned ?? 0,
    files_indexed: job.stats.files_indexed ?? 0,
    symbols_extracted: job.stats.symbols_extracted ?? 0,
    estimated_completion_pct: job.percent,
    started_at: iso(job.startedAt),
  };
}

function title(job: Job, name: string): string {
  if (job.status === 'completed') return `Indexing complete: ${name}`;
  if (job.status === 'failed') return `Indexing failed: ${name}`;
  if (job.status === 'skipped') return `Indexing skipped: ${name}`;
  return `Indexing project: ${name}`;
}

/** Stage counters `skipped_<cause>` a user should hear about (not binary or unsupported files, which are expected). */
const WARN_CAUSES: Record<string, string> = {
  grammar_unavailable: 'their grammar could not be loaded',
  worker_failed: 'their parse worker crashed or hung',
  time_budget: 'parsing them took longer than the per-file budget',
  unreadable: 'they could not be read',
};

/** The precise stage's counters `precise_failed_<cause>` (ADR 0053): an indexer gave no usable index, or was not run, and why. */
const PRECISE_CAUSES: Record<string, string> = {
  too_large: "the repository has more files of the indexer's languages than SYMBOLS_PRECISE_MAX_FILES, so the indexer was not run",
  time_budget: 'its indexer ran past its time budget (SYMBOLS_PRECISE_TIMEOUT_MS) and was stopped',
  out_of_memory: 'its indexer ran out of memory (SYMBOLS_PRECISE_MAX_MEMORY_MB)',
  crashed: 'its indexer crashed or exited with an error',
  no_index: 'its indexer wrote no index',
  index_too_large: 'its index was larger than SYMBOLS_PRECISE_MAX_INDEX_BYTES',
  invalid_index: 'its index was malformed or over a limit (SYMBOLS_PRECISE_MAX_OCCURRENCES)',
};

function warningsOf(stats: Record<string, number>): { warnings?: string[] } {
  const warnings = Object.entries(WARN_CAUSES)
    .filter(([cause]) => (stats[`skipped_${cause}`] ?? 0) > 0)
    .map(([cause, why]) => `${stats[`skipped_${cause}`]} file(s) kept at file level (no symbols) because ${why} (${cause}).`);
  for (const [cause, why] of Object.entries(PRECISE_CAUSES)) {
    if ((stats[`precise_failed_${cause}`] ?? 0) > 0) {
      warnings.push(
        `No precise (compiler-grade) index was made because ${why} (${cause}). Symbol answers come from the search tier for files changed since the last precise index.`,
      );
    }
  }
  return warnings.length > 0 ? { warnings } : {};
}

function iso(date: Date | null): string | null {
  return date ? date.toISOString() : null;
}
