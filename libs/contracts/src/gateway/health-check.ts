import { z } from 'zod';
import { Workspace } from '../common.js';
import { defineTool } from '../tool.js';
import { HealthReport } from '../workspace-registry/common.js';

export const Request = z.strictObject({ workspace: Workspace.optional() });
export type Request = z.output<typeof Request>;
export const Response = HealthReport;
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'health_check',
  title: 'Health check',
  description: "The same report as GET /health: overall status, per-workspace index status, each service's reachability.",
  // Answered by the gateway, which already aggregates every service for GET /health.
  service: 'gateway',
  subject: null,
  input: Request,
  output: Response,
});
