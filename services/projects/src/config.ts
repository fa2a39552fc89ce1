import { CommonEnv, commonSettings, DatabaseEnv, env, parseEnv, type CommonSettings } from '@sextant/runtime';

/** Every environment variable of the projects service (described here; docs/configuration.md is generated: `npm run docs`). */
export const ProjectsEnv = CommonEnv.extend(DatabaseEnv.shape).extend({
  SEXTANT_AUDIT_RETENTION_DAYS: env
    .int(1, 3_650)
    .default(90)
    .describe("how long the audit trail's records are kept in Postgres (`projects.audit_log`); older ones are deleted hourly"),
});

export interface ProjectsConfig extends CommonSettings {
  database: { url: string | undefined; poolSize: number; connectTimeoutMs: number };
  /** How long audit records are kept. */
  auditRetentionDays: number;
}

export function loadConfig(env: NodeJS.ProcessEnv): ProjectsConfig {
  const e = parseEnv(ProjectsEnv, env);
  return {
    ...commonSettings(e),
    database: { url: e.DATABASE_URL, poolSize: e.DATABASE_POOL_SIZE, connectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS },
    auditRetentionDays: e.SEXTANT_AUDIT_RETENTION_DAYS,
  };
}
