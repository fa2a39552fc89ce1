import {
  ClaimBatch,
  RepositoryFreshness,
  ResolveRepositories,
  ResolveWorkspace,
  SettleBatch,
  type BatchFile,
  type RegisteredRepository,
} from '@sextant/contracts';
import type { BusClient } from '@sextant/messaging';

/** How long a stage worker's claim waits at the registry for a batch to be queued. */
const CLAIM_WAIT_MS = 1_000;

/**
 * How a service asks workspace-registry about repositories (projects for
 * members, git-cache for registered names and workspaces). Errors are the
 * registry's own (`workspace_not_registered`, `unavailable` …), as
 * `BusRequestError`s that a handler may let through to the client.
 */
export class RegistryClient {
  /** `shard`: a sharded indexer's own shard; its claims take only batches of repositories that hash to it. */
  constructor(
    private readonly bus: BusClient,
    private readonly shard?: { index: number; count: number },
  ) {}

  /** Each reference (id, name, URL or path of a registered repository) → its repository, or null. */
  async repositories(references: readonly string[]): Promise<Array<RegisteredRepository | null>> {
    const reply = await this.bus.request<ResolveRepositories.Response>(ResolveRepositories.SUBJECT, { references });
    return reply.repositories;
  }

  /** Each repository's indexed commit and whether its branch moved past it (null entries: unknown ids). */
  async freshness(ids: readonly string[]): Promise<RepositoryFreshness.Response['repositories']> {
    const reply = await this.bus.request<RepositoryFreshness.Response>(RepositoryFreshness.SUBJECT, { ids });
    return reply.repositories;
  }

  /** A tool's `workspace` (omitted: the default workspace), resolved with the rules of tools.md. */
  workspace(workspace: string | undefined): Promise<ResolveWorkspace.Response> {
    return this.bus.request<ResolveWorkspace.Response>(ResolveWorkspace.SUBJECT, workspace === undefined ? {} : { workspace });
  }

  // A stage worker's batches (the `BatchSource` of @sextant/jobs, over the bus).

  /** Long-polls: with no batch free, the registry answers when one is queued, or after `CLAIM_WAIT_MS`. */
  async claimBatch(stage: string, owner: string, leaseMs: number): Promise<StageBatch | undefined> {
    const request: ClaimBatch.Request = {
      stage,
      owner,
      lease_ms: leaseMs,
      wait_ms: CLAIM_WAIT_MS,
      ...(this.shard ? { shard: this.shard } : {}),
    };
    const { batch } = await this.bus.request<ClaimBatch.Response>(ClaimBatch.SUBJECT, request);
    if (!batch) return undefined;
    const { id, job_id: jobId, attempts, files, repository, commit } = batch;
    return { id, jobId, stage: batch.stage, attempts, items: files, repository, commit };
  }

  async renewBatch(id: number, owner: string, leaseMs: number): Promise<boolean> {
    return (await this.settle({ action: 'renew', id, owner, lease_ms: leaseMs })).ok;
  }

  async completeBatch(id: number, owner: string, result: Record<string, number>): Promise<boolean> {
    return (await this.settle({ action: 'complete', id, owner, result })).ok;
  }

  async failBatch(id: number, owner: string, error: string, maxAttempts: number): Promise<'ready' | 'failed' | undefined> {
    return (await this.settle({ action: 'fail', id, owner, error: error.slice(0, 2_000), max_attempts: maxAttempts })).status ?? undefined;
  }

  private settle(request: SettleBatch.Request): Promise<SettleBatch.Response> {
    return this.bus.request<SettleBatch.Response>(SettleBatch.SUBJECT, request);
  }
}

/** A stage batch as the registry hands it out: the changed files, and the repository and commit to read them at. */
export interface StageBatch {
  id: number;
  jobId: string;
  stage: string;
  attempts: number;
  items: BatchFile[];
  repository: RegisteredRepository;
  commit: string | null;
}
