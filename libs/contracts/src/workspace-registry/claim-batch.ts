import { z } from 'zod';
import { boundedInt, text } from '../common.js';
import { defineInternal } from '../tool.js';
import { RegisteredRepository } from './registered-repository.js';

/** One file of a stage batch: what Discovery found changed. */
export const BatchFile = z.object({ path: z.string(), change: z.enum(['added', 'modified', 'deleted']) });
export type BatchFile = z.output<typeof BatchFile>;

/**
 * Internal (not a tool): a stage worker (symbol-indexer, vector-search)
 * takes the next batch of its stage, with the repository and the commit the
 * job pinned, under a lease it renews while it works.
 */
export const SUBJECT = 'workspace-registry.claim-batch.v1';
export const Request = z.strictObject({
  stage: text(1, 64),
  owner: text(1, 200),
  lease_ms: boundedInt(1_000, 600_000, 15_000),
  /** With no batch free, wait up to this long for one to be queued (a long poll) before answering null. */
  wait_ms: boundedInt(0, 10_000, 0),
  /**
   * The worker's shard of a sharded indexer (SEXTANT_SHARDS): only batches of
   * repositories that hash to it (`shardOf(repositoryShardKey(locator), count)`),
   * so each repository is cloned and read by one shard.
   */
  shard: z
    .strictObject({ index: z.int().min(0), count: z.int().min(1).max(256) })
    .refine((s) => s.index < s.count, { message: 'index must be below count', path: ['index'] })
    .optional(),
});
export type Request = z.output<typeof Request>;
export const Response = z.object({
  batch: z
    .object({
      id: z.int(),
      job_id: z.string(),
      stage: z.string(),
      attempts: z.int(),
      files: z.array(BatchFile),
      repository: RegisteredRepository,
      /** The commit Discovery pinned; null for a local workspace without commits. */
      commit: z.string().nullable(),
    })
    .nullable(),
});
export type Response = z.output<typeof Response>;

export const request = defineInternal({ name: 'claim-batch', subject: SUBJECT, input: Request, output: Response });
