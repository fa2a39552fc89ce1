import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { Logger } from '@nestjs/common';
import pg from 'pg';
import { DataSource, type EntityManager, type MigrationInterface } from 'typeorm';
import { busError } from '@sextant/contracts';
import { ServiceError } from '@sextant/work';
import { markSpanError, SpanKind, spansExported, tracer } from '@sextant/telemetry';
import { isDatabaseUnavailable } from './errors.js';
import { inProcessStream } from './embedded-postgres.js';

export interface DatabaseOptions {
  /** Postgres URL (`postgres://…`); in embedded mode, the PGlite server's. */
  url: string;
  /** The service's own schema; it owns every table in it. */
  schema: string;
  migrations: Array<new () => MigrationInterface>;
  poolSize: number;
  connectTimeoutMs: number;
}

/** A SQL statement with a stable name, prepared once per connection (see `Database.run`). */
export interface Statement {
  readonly name: string;
  readonly text: string;
}

/** Declares a named statement: `const FIND = sql('find-project', 'SELECT …')`. */
export function sql(name: string, text: string): Statement {
  return { name, text };
}

export interface RunResult<T> {
  rows: T[];
  /** Rows inserted, updated or deleted. */
  rowCount: number;
}

// Physical connections get a number so statement names are unique per connection. On a
// real server that costs nothing; on PGlite, where every connection shares one backend
// session, it is what keeps two connections (or a reconnect) from clashing on a name.
const connectionIds = new WeakMap<object, number>();
let nextConnectionId = 0;

const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 10_000;

/**
 * A service's connection to Postgres. Start-up never fails because the
 * database is down: `start()` keeps trying in the background (migrations
 * included, under an advisory lock so replicas do not race) and until it
 * succeeds every use reports `unavailable`.
 */
export class Database {
  /** Name under which this database appears in health checks. */
  readonly name = 'database';
  private readonly logger: Logger;
  private source: DataSource | undefined;
  private lastError: string | undefined = 'not connected yet';
  private retryTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private attempt: Promise<boolean> | undefined;
  private fatal: Error | undefined;

  constructor(private readonly options: DatabaseOptions) {
    this.logger = new Logger(`Database:${options.schema}`);
  }

  /**
   * Connects and migrates; resolves after the first attempt, retrying in the
   * background while the database is unreachable. Any other failure (a bad
   * migration, a permission problem) rejects: start-up must stop loudly.
   */
  async start(): Promise<void> {
    await this.tryConnect(RETRY_MIN_MS);
    if (this.fatal) throw this.fatal;
  }

  get ready(): boolean {
    return this.source !== undefined;
  }

  /** The data source, or an `unavailable` error while the database has not been reached. */
  get dataSource(): DataSource {
    if (!this.source) throw this.unavailable();
    return this.source;
  }

  /** Runs `work` in one transaction: all of it is written, or none. */
  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /**
   * Runs a named statement with positional parameters (`$1`, `$2`, …), inside
   * the transaction of `manager` when given. The server parses and plans it
   * once per connection; later runs only bind and execute, which is most of
   * the cost of a small query (several times so on PGlite).
   */
  async run<T = Record<string, unknown>>(statement: Statement, values: unknown[], manager?: EntityManager): Promise<RunResult<T>> {
    // Never made active: when spans are not exported, no one would see it.
    const span = spansExported()
      ? tracer.startSpan(`db ${this.options.schema}.${statement.name}`, {
          kind: SpanKind.CLIENT,
          attributes: { 'db.system.name': 'postgresql', 'db.namespace': this.options.schema, 'db.operation.name': statement.name },
        })
      : undefined;
    // Inside a transaction: its connection. Otherwise a pooled connection straight from
    // the driver's pool, without a TypeORM query runner around it (one statement needs none).
    const inTransaction = manager?.queryRunner;
    let client: pg.PoolClient | undefined;
    let broken: Error | undefined;
    try {
      client = inTransaction ? ((await inTransaction.connect()) as pg.PoolClient) : await this.pool().connect();
      let id = connectionIds.get(client);
      if (id === undefined) connectionIds.set(client, (id = nextConnectionId++));
      const result = await client.query<T & pg.QueryResultRow>({
        name: `${this.options.schema}.${statement.name}.${id}`,
        text: statement.text,
        values,
      });
      span?.setAttribute('db.response.returned_rows', result.rowCount ?? 0);
      return { rows: result.rows, rowCount: result.rowCount ?? 0 };
    } catch (error) {
      markSpanError(span, (error as { code?: string }).code ?? 'error', (error as Error).message);
      // A connection that failed at the network level is discarded, not returned to the pool.
      if (isDatabaseUnavailable(error)) broken = error as Error;
      throw error;
    } finally {
      if (client && !inTransaction) client.release(broken);
      span?.end();
    }
  }

  /** The `pg` pool TypeORM opened (its driver's "master" pool). */
  private pool(): pg.Pool {
    return (this.dataSource.driver as unknown as { master: pg.Pool }).master;
  }

  async check(): Promise<{ status: 'up' | 'down'; error?: string }> {
    if (!this.source) return { status: 'down', error: this.lastError };
    try {
      await this.source.query('SELECT 1');
      return { status: 'up' };
    } catch (error) {
      return { status: 'down', error: (error as Error).message };
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    await this.attempt?.catch(() => undefined);
    await this.source?.destroy().catch(() => undefined);
    this.source = undefined;
  }

  private tryConnect(delay: number): Promise<boolean> {
    this.attempt = this.connectOnce().then((ok) => {
      if (!ok && !this.stopped) {
        this.retryTimer = setTimeout(() => void this.tryConnect(Math.min(delay * 2, RETRY_MAX_MS)), delay);
        this.retryTimer.unref();
      }
      return ok;
    });
    return this.attempt;
  }

  private async connectOnce(): Promise<boolean> {
    const { url, schema, migrations, poolSize, connectTimeoutMs } = this.options;
    const source = new DataSource({
      type: 'postgres',
      url,
      schema,
      migrations,
      migrationsTableName: 'migrations',
      synchronize: false,
      migrationsRun: false,
      poolSize,
      connectTimeoutMS: connectTimeoutMs,
      applicationName: `sextant-${schema}`,
      logging: false,
      extra: { idleTimeoutMillis: 30_000, ...this.inProcess() },
    });
    try {
      await source.initialize();
      await this.migrate(source);
      if (this.stopped) {
        await source.destroy();
        return false;
      }
      this.source = source;
      this.lastError = undefined;
      this.logger.log(`connected; schema "${schema}" migrated`);
      return true;
    } catch (error) {
      this.lastError = (error as Error).message;
      await source.destroy().catch(() => undefined);
      if (!isDatabaseUnavailable(error)) {
        this.logger.error(`database start-up failed: ${this.lastError}`);
        this.fatal = error as Error;
        this.stopped = true;
        return false;
      }
      this.logger.warn(`database not available (${this.lastError}); retrying`);
      return false;
    }
  }

  /** Creates the schema and runs pending migrations while holding a session advisory lock, so replicas take turns. */
  private async migrate(source: DataSource): Promise<void> {
    const lock = new pg.Client({
      connectionString: this.options.url,
      connectionTimeoutMillis: this.options.connectTimeoutMs,
      ...this.inProcess(),
    });
    await lock.connect();
    const key = `sextant:migrations:${this.options.schema}`;
    try {
      await lock.query('SELECT pg_advisory_lock(hashtext($1))', [key]);
      await source.query(`CREATE SCHEMA IF NOT EXISTS "${this.options.schema}"`);
      await source.runMigrations({ transaction: 'each' });
    } finally {
      await lock.query('SELECT pg_advisory_unlock(hashtext($1))', [key]).catch(() => undefined);
      await lock.end().catch(() => undefined);
    }
  }

  /**
   * The embedded database of this process, when it is the one: reached in memory, not through its socket (`pg`'s
   * `stream`). Looked up for each connection: should that database have stopped, the connection goes to the socket.
   */
  private inProcess(): { stream?: () => Duplex } {
    const { url } = this.options;
    if (!inProcessStream(url)) return {};
    return { stream: () => inProcessStream(url)?.() ?? new Socket() };
  }

  private unavailable(): ServiceError {
    return new ServiceError(busError('unavailable', 'The database is not reachable right now; nothing was changed. Try again shortly.'));
  }
}
