import type { ToolCaller } from '@sextant/testing';

/** What the benches read of a job (`get_index_job_status`). */
export interface JobStatus {
  status: string;
  error_message: string | null;
  stats: { files_scanned?: number; files_indexed: number; symbols_extracted?: number; chunks_indexed?: number };
  timings_ms?: { discovery?: number; finalizing?: number };
}

/** Polls of a job's status in a row that may answer `timeout` or `unavailable` before the wait gives up. */
const BUSY_POLLS = 5;

/**
 * Polls a job until it ends (`onPoll` sees each status); throws unless it completed. A poll answered `timeout` or
 * `unavailable` is tried again, up to BUSY_POLLS in a row, and said on stderr: embedded PGlite runs one statement at a
 * time, and a loaded machine's indexing can hold it past a poll's deadline (the job itself goes on).
 */
export async function waitForJob(
  call: ToolCaller,
  runId: string,
  pollMs = 20,
  onPoll?: (status: JobStatus) => Promise<void>,
): Promise<JobStatus> {
  let busy = 0;
  for (;;) {
    const status = await call<JobStatus>('get_index_job_status', { runId });
    if (status.isError) {
      const code = (status.body as { error?: string }).error;
      if ((code === 'timeout' || code === 'unavailable') && ++busy < BUSY_POLLS) {
        console.error(`job ${runId}: its status poll answered ${code}; polling again`);
        continue;
      }
      throw new Error(JSON.stringify(status.body));
    }
    busy = 0;
    await onPoll?.(status.body);
    if (['completed', 'failed', 'skipped'].includes(status.body.status)) {
      if (status.body.status !== 'completed') throw new Error(`job ${runId} ${status.body.status}: ${status.body.error_message}`);
      return status.body;
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** `index_repo {force: true}` of the default workspace, followed to its end; with the client-side time. */
export async function fullIndex(
  call: ToolCaller,
  onPoll?: (status: JobStatus) => Promise<void>,
): Promise<JobStatus & { elapsedMs: number }> {
  const started = performance.now();
  const job = await call<{ job_id: string }>('index_repo', { force: true });
  if (job.isError) throw new Error(`index_repo: ${JSON.stringify(job.body)}`);
  const status = await waitForJob(call, job.body.job_id, 20, onPoll);
  return { ...status, elapsedMs: performance.now() - started };
}
