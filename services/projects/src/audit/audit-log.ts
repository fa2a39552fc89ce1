import { Controller, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { AuditRecord, boundAuditRecord, RecordAudit } from '@sextant/contracts';
import { ToolHandler } from '@sextant/messaging';
import { Database, isDatabaseUnavailable, sql } from '@sextant/persistence';
import { auditRecordsDropped } from '@sextant/telemetry';

const SQL = {
  insert: sql(
    'audit.insert',
    `INSERT INTO "projects"."audit_log" (at, principal, principal_id, tool, scope, repositories, code, duration_ms, trace_id, request_id, query)
     SELECT r.at, r.principal, r.principal_id, r.tool, r.scope, ARRAY(SELECT jsonb_array_elements_text(r.repositories)), r.code,
            r.duration_ms, r.trace_id, r.request_id, r.query
     FROM jsonb_to_recordset($1::jsonb) AS r(at timestamptz, principal text, principal_id text, tool text, scope jsonb,
          repositories jsonb, code text, duration_ms double precision, trace_id text, request_id text, query text)
     ON CONFLICT (request_id) DO NOTHING`,
  ),
  expire: sql('audit.expire', `DELETE FROM "projects"."audit_log" WHERE at < now() - make_interval(days => $1)`),
};

/** How often records past the retention are deleted. */
const EXPIRE_EVERY_MS = 3_600_000;

/** The audit trail's table (issue #13): batches from the gateway, in one statement; records past the retention deleted hourly. */
@Injectable()
export class AuditLog implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger('AuditLog');
  private timer: NodeJS.Timeout | undefined;
  /** Set by the module from SEXTANT_AUDIT_RETENTION_DAYS. */
  retentionDays = 90;

  constructor(private readonly db: Database) {}

  /**
   * Stores a batch in one statement; a record stored before (same request id: the gateway handed it over again) is
   * not stored twice. Every record is bounded and cleaned again (`boundAuditRecord`: a gateway of another version may
   * send what Postgres refuses). Should the database still refuse the batch, each record is tried alone and the one
   * refused is set aside, logged with why and counted, so it never keeps the others out. A database that is not
   * reachable fails the batch (`unavailable`: the gateway tries again later).
   */
  async store(records: RecordAudit.Request['records']): Promise<{ stored: number; refused: number }> {
    const clean: AuditRecord[] = [];
    let refused = 0;
    for (const record of records) {
      const checked = AuditRecord.safeParse(boundAuditRecord(record as unknown as AuditRecord));
      if (checked.success) clean.push(checked.data);
      else refused += this.setAside(checked.data ?? record, checked.error.issues[0]?.message ?? 'invalid');
    }
    if (clean.length === 0) return { stored: 0, refused };
    try {
      return { stored: await this.insert(clean), refused };
    } catch (error) {
      if (isDatabaseUnavailable(error)) throw error;
      let stored = 0;
      for (const record of clean) {
        try {
          stored += await this.insert([record]);
        } catch (one) {
          if (isDatabaseUnavailable(one)) throw one;
          refused += this.setAside(record, `the database refused it: ${(one as Error).message}`);
        }
      }
      return { stored, refused };
    }
  }

  /** Logs a record that cannot be stored, with why, and counts it; returns 1. */
  private setAside(record: Partial<AuditRecord>, reason: string): number {
    auditRecordsDropped.inc({ reason: 'refused' });
    this.log.warn({
      msg: `an audit record cannot be stored; it is set aside: ${reason}`,
      refused: {
        request_id: String(record.request_id).slice(0, 256),
        tool: String(record.tool).slice(0, 256),
        at: String(record.at).slice(0, 256),
      },
    });
    return 1;
  }

  private async insert(records: AuditRecord[]): Promise<number> {
    return (await this.db.run(SQL.insert, [JSON.stringify(records)])).rowCount ?? records.length;
  }

  async expire(): Promise<number> {
    return (await this.db.run(SQL.expire, [this.retentionDays])).rowCount ?? 0;
  }

  onApplicationBootstrap(): void {
    const expire = () =>
      this.expire().then(
        (n) => n > 0 && this.log.log(`deleted ${n} audit records older than ${this.retentionDays} days`),
        (error: Error) => this.log.warn(`could not delete old audit records: ${error.message}`),
      );
    void expire();
    this.timer = setInterval(() => void expire(), EXPIRE_EVERY_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }
}

/** The gateway's batches of audit records. */
@Controller()
export class AuditController {
  constructor(private readonly audit: AuditLog) {}

  @ToolHandler(RecordAudit)
  async record(input: RecordAudit.Request): Promise<RecordAudit.Response> {
    return this.audit.store(input.records);
  }
}
