import { z } from 'zod';
import { IndexingStatus } from '../common.js';
import { defineInternal } from '../tool.js';

/** Internal (not a tool): the commit each repository is indexed at and whether its branch has moved past it; the symbol tools ask it. */
export const SUBJECT = 'workspace-registry.repository-freshness.v1';
export const Request = z.strictObject({ ids: z.array(z.string().min(1).max(200)).min(1).max(1000) });
export type Request = z.output<typeof Request>;
export const Response = z.object({
  /** One entry per id, in order; null: no such repository. */
  repositories: z.array(
    z
      .object({
        id: z.string(),
        indexed_commit: z.string().nullable(),
        /** null: not indexed yet, or the head could not be read in time. */
        behind_head: z.boolean().nullable(),
        /** `indexing` also while its first job waits in the queue. */
        index_status: IndexingStatus,
        /**
         * A watched local workspace: whether its working tree changed since its index was made (null: not watched
         * by the registry replica that answers, so unknown), and the paths that did (at most 20; none when the
         * watcher lost count).
         */
        dirty: z.boolean().nullable(),
        changed_paths: z.array(z.string()),
      })
      .nullable(),
  ),
});
export type Response = z.output<typeof Response>;

export const request = defineInternal({ name: 'repository-freshness', subject: SUBJECT, input: Request, output: Response });
