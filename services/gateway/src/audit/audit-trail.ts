import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { boundAuditRecord, RecordAudit, type AuditRecord } from '@sextant/contracts';
import { BUS_CLIENT, BusRequestError, type BusClient } from '@sextant/messaging';
import { auditBacklogBytes, auditRecordsDropped, context, type Context } from '@sextant/telemetry';
import type { GatewayConfig } from '../config.js';
import { GATEWAY_CONFIG } from '../tokens.js';

/** Records per batch to the projects service (its contract takes 500), and the longest a record waits in the gateway. */
const BATCH = 100;
const FLUSH_MS = 1_000;
/** After a failed hand-over, the next waits this long, doubled per failure up to the cap. */
const RETRY_MS = 1_000;
const RETRY_MAX_MS = 60_000;
/** Hand-overs tried at a stop (250 ms apart), all within SEXTANT_SHUTDOWN_GRACE_MS. */
const SHUTDOWN_TRIES = 3;
/** Drops are logged at most this often (they are counted in sextant_audit_records_dropped_total as they happen). */
const DROP_LOG_MS = 60_000;
/** The answers of the projects service that refuse the records themselves: split the batch, never resend it whole. */
const REFUSALS = new Set(['invalid_input', 'internal_error']);

interface Held {
  record: AuditRecord;
  /** Its JSON's bytes. */
  bytes: number;
}

type DropReason = 'backlog' | 'refused' | 'shutdown';

/**
 * The audit trail (issue #13): one record per tool call, written at once to
 * the log stream (context `Audit`; at debug level when it is also stored)
 * and, in batches, to the projects service's `audit_log` table (kept
 * SEXTANT_AUDIT_RETENTION_DAYS). A record never holds a credential; its
 * `query` is null for a caller who opted out.
 *
 * Bounded (issue 35, ADR 0046): a record is bounded and cleaned by
 * `boundAuditRecord` before it is kept; the records held for the projects
 * service are at most SEXTANT_AUDIT_BACKLOG_BYTES (oldest dropped first); a
 * batch is at most SEXTANT_AUDIT_BATCH_BYTES; a batch the service refuses is
 * split until the one record it refuses is set aside (logged, with why); a
 * batch that could not be delivered is tried again later, backing off (the
 * service stores a record once, by its request id, however often it gets it);
 * a stop hands over what it can within SEXTANT_SHUTDOWN_GRACE_MS. Every record
 * not stored is counted in `sextant_audit_records_dropped_total`.
 */
@Injectable()
export class AuditTrail implements OnModuleDestroy {
  private readonly log = new Logger('Audit');
  /** Oldest first; `sending` is the batch being handed over (out of `held`, still counted in the bytes). */
  private held: Held[] = [];
  private sending: Held[] = [];
  private heldBytes = 0;
  private sendingBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  /** Consecutive failed hand-overs, and when the next may be tried. */
  private failures = 0;
  private retryAt = 0;
  private stopped = false;
  private readonly drops = { backlog: 0, refused: 0, shutdown: 0 };
  private dropsLoggedAt = 0;
  private dropLog: NodeJS.Timeout | undefined;
  private readonly persist: boolean;
  private readonly backlogBytes: number;
  private readonly batchBytes: number;
  private readonly graceMs: number;
  /** Records of calls answered in this turn of the event loop (recordSoon). */
  private queued: Array<{ make: () => AuditRecord; context: Context }> = [];
  private soon: NodeJS.Immediate | undefined;

  constructor(
    @Inject(BUS_CLIENT) private readonly bus: BusClient,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    // Without the projects service in this installation, the log stream is the trail.
    this.persist = config.services.includes('projects');
    this.backlogBytes = config.audit.backlogBytes;
    this.batchBytes = config.audit.batchBytes;
    this.graceMs = config.shutdownGraceMs;
  }

  /** Bytes of the records held for the projects service (those being handed over included). */
  get backlog(): { records: number; bytes: number } {
    return { records: this.held.length + this.sending.length, bytes: this.heldBytes + this.sendingBytes };
  }

  /**
   * Records what `make` returns on the next turn of the event loop, in the context (trace) of the caller: a tool call
   * then writes its answer before its record is bounded, serialized and logged. A stop records what is queued first.
   */
  recordSoon(make: () => AuditRecord): void {
    this.queued.push({ make, context: context.active() });
    this.soon ??= setImmediate(() => this.recordQueued());
  }

  private recordQueued(): void {
    clearImmediate(this.soon);
    this.soon = undefined;
    const queued = this.queued;
    this.queued = [];
    for (const { make, context: ctx } of queued) context.with(ctx, () => this.record(make()));
  }

  /** Synchronous and O(size of the record as bounded): the call's answer never waits for its record. */
  record(entry: AuditRecord): void {
    const record = boundAuditRecord(entry);
    // Stored in Postgres, the record is on the console only at debug level (one JSON line per call drowned the rest);
    // without the projects service, the log stream is the trail, so it is logged at info.
    if (!this.persist) return void this.log.log({ audit: record });
    this.log.debug({ audit: record });
    if (this.stopped) return this.dropped('shutdown', 1);
    const bytes = Buffer.byteLength(JSON.stringify(record));
    this.held.push({ record, bytes });
    this.heldBytes += bytes;
    let dropped = 0;
    while (this.heldBytes + this.sendingBytes > this.backlogBytes && this.held.length > 0) {
      this.heldBytes -= this.held.shift()!.bytes;
      dropped += 1;
    }
    if (dropped > 0) this.dropped('backlog', dropped);
    auditBacklogBytes.set(this.heldBytes + this.sendingBytes);
    if (this.flushing) return;
    if ((this.held.length >= BATCH || this.heldBytes >= this.batchBytes) && Date.now() >= this.retryAt) void this.flush();
    else this.schedule(Math.max(FLUSH_MS, this.retryAt - Date.now()));
  }

  /** Hands what is held to the projects service, batch by batch; what could not be delivered stays held for a later try. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.flushing) return this.flushing;
    this.flushing = (async () => {
      while (this.held.length > 0) {
        const undelivered = await this.deliver(this.take());
        this.sending = [];
        this.sendingBytes = 0;
        if (undelivered.length > 0) {
          this.putBack(undelivered);
          this.failures += 1;
          const wait = Math.min(RETRY_MS * 2 ** (this.failures - 1), RETRY_MAX_MS);
          this.retryAt = Date.now() + wait;
          return;
        }
        this.failures = 0;
        this.retryAt = 0;
      }
    })().finally(() => {
      this.flushing = undefined;
      auditBacklogBytes.set(this.heldBytes + this.sendingBytes);
      if (this.held.length > 0 && !this.stopped) this.schedule(Math.max(FLUSH_MS, this.retryAt - Date.now()));
    });
    return this.flushing;
  }

  /** On stop: hands over what it can within the grace period, then drops the rest (counted). */
  async onModuleDestroy(): Promise<void> {
    this.recordQueued();
    const deadline = Date.now() + this.graceMs;
    this.retryAt = 0;
    // A few tries: a service that is not there now is unlikely to come within the grace period.
    for (let tries = 0; tries < SHUTDOWN_TRIES && this.held.length + this.sending.length > 0 && Date.now() < deadline; tries++) {
      let timeout: NodeJS.Timeout | undefined;
      await Promise.race([this.flush(), new Promise((resolve) => (timeout = setTimeout(resolve, deadline - Date.now())))]);
      clearTimeout(timeout);
      // A failed try: again shortly, not after the back-off.
      if (this.held.length > 0 && tries + 1 < SHUTDOWN_TRIES && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, Math.min(250, deadline - Date.now())));
    }
    this.stopped = true;
    clearTimeout(this.timer);
    const left = this.held.length + this.sending.length;
    this.held = [];
    this.heldBytes = 0;
    if (left > 0) this.dropped('shutdown', left);
    this.logDrops();
  }

  /** The oldest records, up to BATCH of them and `batchBytes` (at least one), moved from `held` to `sending`. */
  private take(): Held[] {
    let count = 0;
    let bytes = 0;
    while (count < this.held.length && count < BATCH && (count === 0 || bytes + this.held[count].bytes <= this.batchBytes)) {
      bytes += this.held[count].bytes;
      count += 1;
    }
    this.sending = this.held.splice(0, count);
    this.sendingBytes = bytes;
    this.heldBytes -= bytes;
    return this.sending;
  }

  /** Records not delivered go back to the head of `held`, oldest first, within the bound. */
  private putBack(records: Held[]): void {
    this.held.unshift(...records);
    this.heldBytes += records.reduce((sum, r) => sum + r.bytes, 0);
    let dropped = 0;
    while (this.heldBytes > this.backlogBytes && this.held.length > 0) {
      this.heldBytes -= this.held.shift()!.bytes;
      dropped += 1;
    }
    if (dropped > 0) this.dropped('backlog', dropped);
  }

  /**
   * Hands `batch` over; returns what was not delivered (to try again later). A refusal of the records (the service
   * answered, and not "unavailable") splits the batch in halves until the record refused is alone: it is set aside,
   * logged with the refusal, and counted; the others are stored.
   */
  private async deliver(batch: Held[]): Promise<Held[]> {
    try {
      await this.bus.request<RecordAudit.Response>(RecordAudit.SUBJECT, { records: batch.map((h) => h.record) });
      return [];
    } catch (error) {
      const failure = error instanceof BusRequestError ? error.error : { code: 'internal_error', message: String(error) };
      if (!REFUSALS.has(failure.code)) {
        this.log.warn(`could not hand ${this.backlog.records} audit record(s) to the projects service yet: ${failure.message}`);
        return batch;
      }
      if (batch.length === 1) {
        const { record } = batch[0];
        this.log.warn({
          msg: `the projects service refused an audit record; it is set aside (kept in this log only): ${failure.code}: ${failure.message}`,
          refused: { request_id: record.request_id, tool: record.tool, at: record.at },
        });
        this.dropped('refused', 1);
        return [];
      }
      const half = Math.ceil(batch.length / 2);
      const first = await this.deliver(batch.slice(0, half));
      if (first.length > 0) return [...first, ...batch.slice(half)];
      return this.deliver(batch.slice(half));
    }
  }

  private schedule(ms: number): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, ms);
    this.timer.unref();
  }

  /** Counts drops at once; logs them at most once per DROP_LOG_MS. */
  private dropped(reason: DropReason, count: number): void {
    auditRecordsDropped.inc({ reason }, count);
    this.drops[reason] += count;
    const wait = this.dropsLoggedAt + DROP_LOG_MS - Date.now();
    if (wait <= 0) this.logDrops();
    else if (!this.dropLog) {
      this.dropLog = setTimeout(() => this.logDrops(), wait);
      this.dropLog.unref();
    }
  }

  private logDrops(): void {
    clearTimeout(this.dropLog);
    this.dropLog = undefined;
    const { backlog, refused, shutdown } = this.drops;
    if (backlog + refused + shutdown === 0) return;
    this.dropsLoggedAt = Date.now();
    this.log.warn(
      `audit records not stored in Postgres (the log stream has them): ${backlog} dropped from a full backlog ` +
        `(SEXTANT_AUDIT_BACKLOG_BYTES), ${refused} refused by the projects service, ${shutdown} left at shutdown`,
    );
    this.drops.backlog = this.drops.refused = this.drops.shutdown = 0;
  }
}

/** The scope fields of a call, as it named them. */
const SCOPE_FIELDS = ['scope', 'repo', 'repos', 'repository', 'project', 'workspace', 'file_path', 'path'] as const;
/** The fields that name the one repository a call is over, in the order a tool reads them. */
const ONE_REPOSITORY_FIELDS = ['repository', 'repo', 'workspace'] as const;
/** The fields that carry what a caller searched for. */
const QUERY_FIELDS = ['query', 'pattern', 'question', 'name'] as const;

/** What a call's arguments and answer contribute to its record: its scope, the repositories answered over, its query. */
export function auditDetails(
  args: unknown,
  output: Record<string, unknown> | undefined,
  withQuery: boolean,
): Pick<AuditRecord, 'scope' | 'repositories' | 'query'> {
  const input = args && typeof args === 'object' ? (args as Record<string, unknown>) : {};
  const scope = Object.fromEntries(SCOPE_FIELDS.filter((f) => input[f] !== undefined).map((f) => [f, input[f]]));
  const freshness = Array.isArray(output?.freshness) ? (output.freshness as Array<{ repo?: unknown }>) : [];
  // The repositories the answer says it covers; else, for an answer over the one repository the call named (the git
  // tools), that one as named.
  const covered = freshness.map((f) => f.repo);
  const named = output ? ONE_REPOSITORY_FIELDS.map((f) => input[f]).find((r) => typeof r === 'string') : undefined;
  const repositories = [...new Set((covered.length > 0 ? covered : [named]).filter((r): r is string => typeof r === 'string'))].slice(
    0,
    50,
  );
  const text = QUERY_FIELDS.map((f) => input[f]).find((v): v is string => typeof v === 'string');
  return { scope, repositories, query: withQuery && text !== undefined ? text.slice(0, 2_000) : null };
}
