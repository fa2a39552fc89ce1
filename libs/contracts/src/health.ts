import { z } from 'zod';
import { InterruptedRecoveryReport, ServerStatus, WorkspaceHealth } from './workspace-registry/common.js';

/** What every service answers on its `<service>.health.v1` subject. */
export const ServiceHealth = z.object({
  service: z.string(),
  version: z.string(),
  instance: z.string().describe('Which replica answered: host name and process id.'),
  status: ServerStatus,
  uptime_seconds: z.int(),
  subjects: z.array(z.string()).describe('Subjects this service handles; the gateway exposes the tools behind them.'),
  checks: z.record(z.string(), z.object({ status: z.enum(['up', 'down']), error: z.string().optional() })),
  workspaces: z.array(WorkspaceHealth).optional().describe('Only the workspace registry reports workspaces.'),
  interrupted_recovery_report: InterruptedRecoveryReport.optional().describe('Only the workspace registry reports interrupted jobs.'),
});
export type ServiceHealth = z.infer<typeof ServiceHealth>;
