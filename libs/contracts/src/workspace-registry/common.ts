import { z } from 'zod';

export const JobStatus = z.enum(['pending', 'running', 'completed', 'failed', 'skipped']);

export const InterruptedRecoveryReport = z.object({
  detected: z.boolean(),
  interrupted_jobs: z.int(),
  last_interrupted_at: z.string().nullable(),
  recommended_action: z.string(),
});

export const ActiveJob = z.object({
  job_id: z.string(),
  progress_token: z.string(),
  mode: z.enum(['full', 'incremental']),
  status: JobStatus,
  files_scanned: z.int(),
  files_indexed: z.int(),
  symbols_extracted: z.int(),
  estimated_completion_pct: z.int(),
  started_at: z.string().nullable(),
});

/** One workspace in `GET /health` and `health_check`. */
export const WorkspaceHealth = z.object({
  project_id: z.string(),
  repo_root: z.string(),
  index_status: z.enum(['ready', 'indexing', 'stale', 'error', 'not_indexed']),
  schema_status: z.enum(['compatible', 'not_indexed', 'reindex_required', 'corrupt_manifest']),
  current_schema_version: z.int(),
  required_schema_version: z.int(),
  last_indexed_at: z.string().nullable(),
  ref: z.string().nullable(),
  file_count: z.int(),
  symbol_count: z.int(),
});
export type WorkspaceHealth = z.infer<typeof WorkspaceHealth>;

export const ServerStatus = z.enum(['ready', 'warming', 'indexing', 'error']);
export type ServerStatus = z.infer<typeof ServerStatus>;

export const ServiceReachability = z.object({
  status: z.enum(['up', 'down']),
  version: z.string().optional(),
  latency_ms: z.number().optional(),
  service_status: ServerStatus.optional(),
  error: z.string().optional(),
});
export type ServiceReachability = z.infer<typeof ServiceReachability>;

/** `GET /health` and the `health_check` tool return the same object. */
export const HealthReport = z.object({
  status: ServerStatus,
  projects: z.array(WorkspaceHealth),
  version: z.string(),
  uptime_seconds: z.int(),
  services: z.record(z.string(), ServiceReachability),
  interrupted_recovery_report: InterruptedRecoveryReport.optional(),
});
export type HealthReport = z.infer<typeof HealthReport>;

