export { Database, sql, type DatabaseOptions, type RunResult, type Statement } from './database.js';
export { DatabaseModule } from './database.module.js';
export { startEmbeddedPostgres, type EmbeddedPostgres, type EmbeddedPostgresOptions } from './embedded-postgres.js';
export { classifyDatabaseError, isDatabaseUnavailable, uniqueViolation } from './errors.js';
