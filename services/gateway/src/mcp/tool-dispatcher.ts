import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ErrorCode as RpcCode, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  accessRefusal,
  busError,
  GetContract,
  HealthCheck,
  inputJsonSchema,
  LOCAL_PRINCIPAL,
  mayUse,
  outputJsonSchema,
  principalLabel,
  repositoryShardKey,
  safeParseInput,
  shardOf,
  shardSubject,
  TOOLS,
  type BusError,
  type Metadata,
  type Principal,
  type ToolContract,
} from '@sextant/contracts';
import { auditDetails, AuditTrail } from '../audit/audit-trail.js';
import { CallLimits } from '../limits/call-limits.js';
import { BUS_CLIENT, BusRequestError, REQUEST_ID_HEADER, type BusClient } from '@sextant/messaging';
import { RegistryClient } from '@sextant/registry-client';
import { withPrincipal } from '@sextant/work';
import { currentTraceId, markSpanError, requestsInFlight, SpanKind, toolCalls, toolCallSeconds, tracer } from '@sextant/telemetry';
import { ContractDocuments } from '../contracts/contract-documents.js';
import { ServiceDirectory } from '../discovery/service-directory.js';
import { HealthService } from '../health/health.service.js';
import type { GatewayConfig } from '../config.js';
import { GATEWAY_CONFIG } from '../tokens.js';
import { JobFollower, type ProgressChannel } from './job-progress.js';

type LocalHandler = (input: never) => Promise<object> | object;

/** Who calls and how: the progress channel (SDK path), the authenticated caller, whether its query may be audited. */
export interface CallContext {
  channel?: ProgressChannel;
  principal?: Principal;
  /** False when the caller opted out of having its query text in the audit trail (`Sextant-Audit-Query: off`). */
  auditQuery?: boolean;
}

interface Call {
  tool: ToolContract;
  args: unknown;
  channel: ProgressChannel | undefined;
  principal: Principal;
  auditQuery: boolean;
  requestId: string;
  at: Date;
  started: number;
}

/**
 * Turns an MCP `tools/call` into a bus request and the reply into a
 * `CallToolResult`: validate with the contract, forward to the owning
 * service (or answer a gateway tool here), add `metadata`, map errors to
 * `{error, message, details}`. Tools are data (`@sextant/contracts`); nothing
 * here is specific to one tool except the gateway's own handlers.
 */
@Injectable()
export class ToolDispatcher {
  private readonly logger = new Logger('ToolDispatcher');
  private readonly published = new Map<string, Tool>();
  private readonly local: Record<string, LocalHandler>;
  /** The tools of this installation, in catalog order; the list never changes while the gateway runs. */
  private readonly tools: readonly ToolContract[];
  private readonly byName: ReadonlyMap<string, ToolContract>;
  private readonly jobs: JobFollower;
  private readonly registry: RegistryClient;
  private readonly shards: Readonly<Record<string, number>>;

  /** Per-caller rate limits and in-flight caps. */
  private readonly limits: CallLimits;
  constructor(
    @Inject(BUS_CLIENT) private readonly bus: BusClient,
    directory: ServiceDirectory,
    private readonly documents: ContractDocuments,
    private readonly health: HealthService,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly audit: AuditTrail,
  ) {
    this.jobs = new JobFollower(bus, config.progress);
    this.limits = new CallLimits(config.limits);
    this.registry = new RegistryClient(bus);
    this.shards = config.shards;
    this.local = {
      [GetContract.tool.name]: (input: GetContract.Request) => this.getContract(input),
      [HealthCheck.tool.name]: (input: HealthCheck.Request) => this.healthCheck(input),
    };
    const services = new Set<string>(directory.services);
    this.tools = TOOLS.filter((tool) => (tool.subject === null ? tool.name in this.local : services.has(tool.service)));
    this.byName = new Map(this.tools.map((tool) => [tool.name, tool]));
    for (const tool of this.tools) {
      this.published.set(tool.name, {
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: inputJsonSchema(tool) as Tool['inputSchema'],
        outputSchema: outputJsonSchema(tool) as Tool['outputSchema'],
        annotations: { title: tool.title, ...tool.annotations },
      });
    }
  }

  /** Tools answered here, plus every tool of the services this installation runs, that `principal` may use. */
  listTools(principal: Principal = LOCAL_PRINCIPAL): Tool[] {
    return this.tools.filter((tool) => mayUse(principal, tool.access)).map((tool) => this.published.get(tool.name)!);
  }

  /**
   * Calls a tool. A tool that starts an indexing job, called with a progress
   * `channel` holding a token, reports the job's progress there and returns
   * once the job ends (or the wait cap passes) with its final status.
   */
  async call(name: string, args: unknown, context: CallContext = {}): Promise<CallToolResult> {
    const tool = this.byName.get(name);
    if (!tool) {
      throw new McpError(RpcCode.InvalidParams, `Unknown tool: ${name}. Call tools/list for the available tools.`);
    }
    const call: Call = {
      tool,
      args,
      channel: context.channel,
      principal: context.principal ?? LOCAL_PRINCIPAL,
      auditQuery: context.auditQuery ?? true,
      requestId: randomUUID(),
      at: new Date(),
      started: performance.now(),
    };
    requestsInFlight.inc({ component: 'gateway' });
    // Every bus request the call makes (its tool's, a followed job's polls) carries the caller.
    return withPrincipal(call.principal, () => this.traced(call));
  }

  private traced({ tool, args, channel, principal, auditQuery, requestId, at, started }: Call): Promise<CallToolResult> {
    const name = tool.name;
    return tracer.startActiveSpan(
      `tools/call ${name}`,
      { kind: SpanKind.SERVER, attributes: { 'mcp.tool.name': name, 'sextant.request_id': requestId } },
      async (span) => {
        const metadata = (): Metadata => ({
          execution_time_ms: Math.round((performance.now() - started) * 1000) / 1000,
          request_id: requestId,
          trace_id: currentTraceId(),
        });
        let outcome = 'ok';
        let answered: Record<string, unknown> | undefined;
        let release = () => undefined as void;
        try {
          // Before the input is read: a caller learns nothing of a tool it may not use. The service checks again.
          const refusal = accessRefusal(tool.name, tool.access, principal);
          if (refusal) {
            outcome = refusal.code;
            return failure(refusal, metadata());
          }
          const admitted = this.limits.admit(principal, tool.name);
          if ('retryAfterMs' in admitted) {
            outcome = 'rate_limited';
            const seconds = Math.ceil(admitted.retryAfterMs / 1000);
            return failure(
              busError('rate_limited', `Too many calls: ${admitted.reason}. Retry after ${seconds} s.`, { retry_after: seconds }),
              metadata(),
            );
          }
          release = () => admitted.release();
          const input = safeParseInput(tool.input, args ?? {});
          if (!input.ok) {
            outcome = input.error.code;
            return failure(input.error, metadata());
          }
          let output = tool.subject
            ? await this.bus.request<Record<string, unknown>>(this.subjectFor(tool, tool.subject, input.value), input.value, {
                headers: { [REQUEST_ID_HEADER]: requestId },
              })
            : ((await this.local[tool.name](input.value as never)) as Record<string, unknown>);
          if (tool.startsJob && channel) output = await this.followJob(String(output[tool.startsJob.idField]), output, channel);
          answered = output;
          return success(output, metadata());
        } catch (error) {
          const busFailure = error instanceof BusRequestError ? error.error : this.unexpected(error, requestId);
          outcome = busFailure.code;
          markSpanError(span, busFailure.code, busFailure.message);
          return failure(busFailure, metadata());
        } finally {
          // One line per call at debug level (an access log), inside the call's span: it carries the trace id. The audit
          // record below is the info-level trail.
          const ms = performance.now() - started;
          this.logger.debug(`tools/call ${name} ${outcome} in ${Math.round(ms)} ms (request ${requestId}, ${principalLabel(principal)})`);
          toolCalls.inc({ tool: name, code: outcome });
          toolCallSeconds.observe({ tool: name }, ms / 1000);
          // Made and kept once the answer is on its way (the record is in the call's trace all the same).
          const outcomeCode = outcome;
          const output = answered;
          this.audit.recordSoon(() => ({
            at: at.toISOString(),
            principal: principalLabel(principal),
            principal_id: principal.id,
            tool: name,
            code: outcomeCode,
            duration_ms: Math.round(ms * 1000) / 1000,
            trace_id: currentTraceId() ?? null,
            request_id: requestId,
            ...auditDetails(args, output, auditQuery),
          }));
          requestsInFlight.dec({ component: 'gateway' });
          release();
          span.end();
        }
      },
    );
  }

  /** The tool's subject, or its repository's shard's when the owning service runs sharded (SEXTANT_SHARDS). */
  private subjectFor(tool: ToolContract, subject: string, input: unknown): string {
    const count = this.shards[tool.service] ?? 1;
    const repository = tool.shardBy ? (input as Record<string, unknown>)[tool.shardBy] : undefined;
    if (count === 1 || typeof repository !== 'string') return subject;
    return shardSubject(subject, shardOf(repositoryShardKey(repository), count));
  }

  private async followJob(jobId: string, output: Record<string, unknown>, channel: ProgressChannel): Promise<Record<string, unknown>> {
    if (channel.token === undefined) {
      if (channel.background) void this.jobs.follow(jobId, `index-job-${jobId}`, channel).catch(() => undefined);
      return output;
    }
    const final = await this.jobs.follow(jobId, channel.token, channel);
    return final ? { ...output, status: final.status } : output;
  }

  /** `GET /health`'s report; with `workspace`, only that workspace's entry. */
  private async healthCheck(input: HealthCheck.Request): Promise<HealthCheck.Response> {
    if (input.workspace === undefined) return this.health.report();
    // The workspace is resolved by the registry, with the rules (and errors) every tool's `workspace` follows.
    const { repository } = await this.registry.workspace(input.workspace);
    const report = await this.health.report();
    return { ...report, projects: report.projects.filter((p) => p.project_id === repository.id) };
  }

  private getContract(input: GetContract.Request): GetContract.Response {
    const document = this.documents.contract(input.contract_id);
    if (!document) {
      throw new BusRequestError(
        busError('not_found', `No contract "${input.contract_id}". Known contracts: ${this.documents.contractIds().join(', ')}.`, {
          contract_id: input.contract_id,
        }),
      );
    }
    return { contract_id: document.info.name.replace(/\.md$/, ''), uri: document.info.uri, mimeType: 'text/markdown', text: document.text };
  }

  private unexpected(error: unknown, requestId: string): BusError {
    this.logger.error(`request ${requestId} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return busError('internal_error', `Internal error in the gateway (request ${requestId}); it was logged.`);
  }
}

/** A successful result: the service's fields plus `metadata`, as structured content and as text. */
function success(output: Record<string, unknown>, metadata: Metadata): CallToolResult {
  const { rate_limit: rateLimit, ...fields } = output as { rate_limit?: { remaining: number; reset: number } };
  const meta: Metadata = rateLimit
    ? { ...metadata, rate_limit_remaining: rateLimit.remaining, rate_limit_reset: rateLimit.reset }
    : metadata;
  const body = { ...fields, metadata: meta };
  return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
}

/** A failed result: `{error, message, details?, metadata}` with `isError: true`. */
function failure(error: BusError, metadata: Metadata): CallToolResult {
  const body = {
    error: error.code,
    message: error.message,
    ...(error.details === undefined ? {} : { details: error.details }),
    metadata,
  };
  return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body, isError: true };
}
