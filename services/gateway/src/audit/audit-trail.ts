import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { RecordAudit, type AuditRecord } from '@sextant/contracts';
import { BUS_CLIENT, type BusClient } from '@sextant/messaging';
import type { GatewayConfig } from '../config.js';
import { GATEWAY_CONFIG } from '../tokens.js';

/** Records per batch to the projects service, and the longest a record waits in the gateway. */
const BATCH = 100;
const FLUSH_MS = 1_000;
/** Records held while the projects service cannot take them; older ones are dropped past this (and counted in the log). */
const MAX_HELD = 10_000;

/**
 * The audit trail (issue #13): one record per tool call, written at once to
 * the log stream (context `Audit`) and, in batches, to the projects
 * service's `audit_log` table (kept SEXTANT_AUDIT_RETENTION_DAYS). A record
 * never holds a credential; its `query` is null for a caller who opted out.
 */
@Injectable()
export class AuditTrail implements OnModuleDestroy {
  private readonly log = new Logger('Audit');
  private held: AuditRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private readonly persist: boolean;

  constructor(
    @Inject(BUS_CLIENT) private readonly bus: BusClient,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    // Without the projects service in this installation, the log stream is the trail.
    this.persist = config.services.includes('projects');
  }

  record(entry: AuditRecord): void {
    this.log.log({ audit: entry });
    if (!this.persist) return;
    this.held.push(entry);
    if (this.held.length > MAX_HELD) {
      const dropped = this.held.length - MAX_HELD;
      this.held = this.held.slice(dropped);
      this.log.warn(`the projects service has not taken audit records for a while: ${dropped} dropped (the log stream has them)`);
    }
    if (this.held.length >= BATCH) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), FLUSH_MS);
      this.timer.unref();
    }
  }

  /** Hands what is held to the projects service; on failure it stays held for the next try. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.flushing) return this.flushing;
    this.flushing = (async () => {
      while (this.held.length > 0) {
        const batch = this.held.slice(0, BATCH);
        try {
          await this.bus.request<RecordAudit.Response>(RecordAudit.SUBJECT, { records: batch });
          this.held = this.held.slice(batch.length);
        } catch (error) {
          this.log.warn(`could not store ${this.held.length} audit record(s) yet: ${(error as Error).message}`);
          this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS * 5);
          this.timer.unref();
          return;
        }
      }
    })().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  async onModuleDestroy(): Promise<void> {
    await this.flush();
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
