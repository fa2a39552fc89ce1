import { z } from 'zod';
import { defineTool } from '../tool.js';
import { JobStatus } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'workspace-registry.job-status.v1';
export const Request = z.strictObject({
  runId: z.string().min(1).max(100).describe('The job_id (or runId) returned by index_repository, index_repo or sync_repo.'),
});
export type Request = z.output<typeof Request>;
export const Response = z.object({
  job_id: z.string(),
  runId: z.string().describe('The same as job_id (its first name here; kept for clients that read it).'),
  status: JobStatus,
  repository_id: z.string(),
  ref: z.string().nullable(),
  started_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  error_message: z.string().nullable(),
  stats: z.object({
    files_indexed: z.int(),
    symbols_extracted: z.int(),
    references_extracted: z.int(),
    files_scanned: z.int().optional().describe('Files Discovery found (an extension).'),
    files_skipped: z
      .int()
      .optional()
      .describe('Files kept at file level only: no grammar, binary, too large, past the time budget … (an extension).'),
    chunks_indexed: z.int().optional().describe('Search chunks written by the vectors stage (an extension).'),
  }),
  warnings: z
    .array(z.string())
    .optional()
    .describe(
      'What the job could not do but did not fail for, e.g. files kept at file level because a grammar failed to load (an extension).',
    ),
  progress: z
    .object({
      stage: z
        .string()
        .nullable()
        .describe('discovery, then each indexing stage by its name (symbols, vectors, …) in order, then finalizing.'),
      percentage: z
        .int()
        .describe(
          'Never goes back: discovery 0–10, the indexing stages together 10–95 (batches done over all stages), finalizing 95–99, done 100.',
        ),
      message: z
        .string()
        .nullable()
        .describe('As in notifications/progress, e.g. "Scanning files: 1200 discovered", "symbols: 120/539 files, 345 symbols".'),
      title: z.string().describe('E.g. "Indexing project: backend".'),
    })
    .optional()
    .describe('Where the job is (an extension).'),
  timings_ms: z
    .object({ discovery: z.int().optional(), finalizing: z.int().optional() })
    .optional()
    .describe('How long the stages took, once done (an extension).'),
  retry_count: z.int(),
  created_at: z.string(),
});
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'get_index_job_status',
  title: 'Index job status',
  description: 'Status of an indexing job started by index_repository, index_repo or sync_repo. Poll until completed, failed or skipped.',
  service: 'workspace-registry',
  subject: SUBJECT,
  input: Request,
  output: Response,
});
