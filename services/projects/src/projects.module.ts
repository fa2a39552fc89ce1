import { Module, type DynamicModule } from '@nestjs/common';
import { Database, DatabaseModule } from '@sextant/persistence';
import { createHealthController, HEALTH_PROBES } from '@sextant/runtime';
import { AuditController, AuditLog } from './audit/audit-log.js';
import { ApiKeys } from './keys/api-keys.js';
import { ApiKeysController } from './keys/api-keys.controller.js';
import { MIGRATIONS } from './migrations/index.js';
import { ProjectsController } from './projects/projects.controller.js';
import { ProjectsRepository } from './projects/projects.repository.js';
import { ProjectsService } from './projects/projects.service.js';

export interface ProjectsModuleOptions {
  database: { url: string; poolSize: number; connectTimeoutMs: number };
  /** How long audit records are kept (SEXTANT_AUDIT_RETENTION_DAYS). */
  auditRetentionDays?: number;
}

/** The projects service: its handlers, its logic, its schema `projects` (projects, and the API keys granted on them). */
@Module({})
export class ProjectsModule {
  static register(options: ProjectsModuleOptions): DynamicModule {
    return {
      module: ProjectsModule,
      imports: [DatabaseModule.forService({ ...options.database, schema: 'projects', migrations: MIGRATIONS })],
      controllers: [ProjectsController, ApiKeysController, AuditController, createHealthController('projects')],
      providers: [
        ProjectsService,
        ProjectsRepository,
        ApiKeys,
        {
          provide: AuditLog,
          inject: [Database],
          useFactory: (db: Database) => Object.assign(new AuditLog(db), { retentionDays: options.auditRetentionDays ?? 90 }),
        },
        { provide: HEALTH_PROBES, useFactory: (db: Database) => [db], inject: [Database] },
      ],
    };
  }
}
