import { Logger } from '@nestjs/common';
import { GetIndexJobStatus } from '@sextant/contracts';
import { type BusClient } from '@sextant/messaging';

/** Where a tool call may send `notifications/progress` (the SDK request's `sendNotification`). */
export interface ProgressChannel {
  /** The client's `_meta.progressToken`; undefined when it asked for none. */
  token: string | number | undefined;
  send(params: ProgressParams): Promise<void>;
  /** Aborted when the client goes away. */
  signal?: AbortSignal;
  /**
   * Over stdio a job started without a token still reports, under the token
   * `index-job-<id>` (ADR 0016), while the call returns at once.
   */
  background: boolean;
}

/**
 * MCP's progress fields, plus `value`, LSP-style (`report`/`end`), for clients
 * built on it.
 */
export interface ProgressParams {
  [key: string]: unknown;
  progressToken: string | number;
  progress: number;
  total: number;
  message: string;
  value: { kind: 'report' | 'end'; title: string; message: string; percentage?: number };
}

const TERMINAL = new Set(['completed', 'failed', 'skipped']);

/**
 * Follows an indexing job by polling its status on the bus and turns each
 * change into a progress notification: `progress` only ever grows, the
 * stages arrive in order, and an `end` notification closes the stream when
 * the job completes or fails. Polling the bus rather than subscribing keeps
 * the registry the only writer of job state and works the same over NATS and
 * in process.
 */
export class JobFollower {
  private readonly log = new Logger('JobProgress');

  constructor(
    private readonly bus: BusClient,
    private readonly options: { pollMs: number; waitMs: number },
  ) {}

  /** Reports until the job ends (or the wait cap, or the client leaves); resolves with its last status. */
  async follow(jobId: string, token: string | number, channel: ProgressChannel): Promise<GetIndexJobStatus.Response | undefined> {
    const deadline = Date.now() + this.options.waitMs;
    let last = -1;
    let lastMessage = '';
    let status: GetIndexJobStatus.Response | undefined;
    while (!channel.signal?.aborted) {
      try {
        status = await this.bus.request<GetIndexJobStatus.Response>(GetIndexJobStatus.SUBJECT, { runId: jobId });
      } catch (error) {
        this.log.warn(`following job ${jobId}: ${(error as Error).message}`);
        if (Date.now() >= deadline) return status;
        await this.sleep(channel.signal);
        continue;
      }
      const ended = TERMINAL.has(status.status);
      const progress = status.progress;
      const percentage = ended ? 100 : (progress?.percentage ?? 0);
      const message =
        (ended && status.status !== 'completed' ? status.error_message && `Error: ${status.error_message}` : undefined) ??
        progress?.message ??
        status.status;
      // Nothing to say until the job started (its first message) or ended.
      const started = ended || progress?.message != null;
      if (started && (ended || percentage > last || message !== lastMessage)) {
        // MCP requires `progress` to increase with every notification, also when only the message moved.
        const value = Math.max(percentage, last + 0.01);
        last = value;
        lastMessage = message;
        const title = progress?.title ?? `Indexing job ${jobId}`;
        await channel
          .send({
            progressToken: token,
            progress: Math.min(100, Math.round(value * 100) / 100),
            total: 100,
            message,
            value: ended ? { kind: 'end', title, message } : { kind: 'report', title, message, percentage: Math.floor(percentage) },
          })
          .catch(() => undefined);
      }
      if (ended || Date.now() >= deadline) return status;
      await this.sleep(channel.signal);
    }
    return status;
  }

  /**
   * One poll interval, cut short when the client goes away. The abort
   * listener goes with the timer: `{ once: true }` removes it only when it
   * fires, and one left behind per poll on the call's signal added up to
   * Node's MaxListenersExceededWarning by the eleventh poll of a job.
   */
  private sleep(signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', wake);
        resolve();
      };
      const timer = setTimeout(wake, this.options.pollMs);
      signal?.addEventListener('abort', wake, { once: true });
    });
  }
}
