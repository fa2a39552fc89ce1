import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  accessRefusal,
  busError,
  ERROR_CATALOG,
  principalLabel,
  ScipUpload,
  type BusError,
  type ErrorCode,
  type Principal,
} from '@sextant/contracts';
import { BUS_CLIENT, BusRequestError, type BusClient } from '@sextant/messaging';
import { currentTraceId } from '@sextant/telemetry';
import { withPrincipal } from '@sextant/work';
import { AuditTrail } from '../audit/audit-trail.js';
import { Authenticator } from '../auth/authenticator.js';
import { authenticateRequest } from '../auth/protected-resource.js';
import type { GatewayConfig } from '../config.js';
import { refuseBody, type ConnectionGuard } from '../http/connection-guard.js';
import { hostOrOriginRefusal } from '../http/http-setup.js';
import { writeJson } from '../http/json-rpc-error.js';
import { GATEWAY_CONFIG } from '../tokens.js';
import { Parts } from './parts.js';

/** The path of SCIP uploads. */
export const SCIP_PATH = '/scip';

/** HTTP status of each error code an upload can end with. */
const STATUS: Partial<Record<ErrorCode, number>> = {
  invalid_input: 400,
  not_found: 404,
  forbidden: 403,
  rate_limited: 429,
  timeout: 504,
  unavailable: 503,
};

/** Time allowed each bus request of an upload (finishing decodes and stores the whole index). */
const FINISH_TIMEOUT_MS = 300_000;

/**
 * `POST /scip?repository=…&commit=…` with a SCIP index as the body (issue 36, ADR 0056): a platform's CI sends the
 * index an indexer made (scip-go, scip-java, rust-analyzer, …) for a repository's commit. Refused from its headers,
 * before a byte of the body is read: an unauthenticated caller, one that maintains no project, a missing repository
 * or commit, and, by symbol-indexer's `begin`, a repository the caller does not maintain, a commit it is not indexed
 * at, a declared length over the cap. The body is then streamed to symbol-indexer in parts of `PART_BYTES` (each a bus
 * message under NATS `max_payload`), the gateway holding one part at a time; past the cap it stops reading and the
 * upload is dropped. Symbol-indexer checks and stores the whole index, or refuses it and stores nothing. Answers are
 * JSON: the stored index's figures, or `{error, message, details}` with the catalog's codes.
 */
@Injectable()
export class ScipUploadEndpoint {
  private readonly logger = new Logger('ScipUploadEndpoint');

  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(BUS_CLIENT) private readonly bus: BusClient,
    private readonly auth: Authenticator,
    private readonly audit: AuditTrail,
  ) {}

  async handle(req: IncomingMessage, res: ServerResponse, guard?: ConnectionGuard): Promise<void> {
    const refusal = hostOrOriginRefusal(req.headers, this.config);
    if (refusal) return refuse(req, res, busError('forbidden', refusal));
    const principal = await authenticateRequest(this.auth, this.config, req, res);
    if (!principal) return;
    guard?.vouch(req.socket);
    const query = new URL(req.url ?? '/', 'http://gateway').searchParams;
    const repository = query.get('repository') ?? '';
    const commit = (query.get('commit') ?? '').toLowerCase();
    const declared = req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);
    const at = new Date();
    const started = performance.now();
    let code = 'ok';
    let stored: string | undefined;
    try {
      const refused = headerRefusal(req, principal, repository, commit);
      if (refused) throw new BusRequestError(refused);
      const answer = await withPrincipal(principal, () => this.upload(req, res, { repository, commit, bytes: declared }));
      if (answer) {
        stored = answer.repository;
        writeJson(res, 200, answer);
      } else code = 'invalid_input';
    } catch (error) {
      const failure = this.failure(error);
      code = failure.code;
      refuse(req, res, failure);
    } finally {
      // In the audit trail as a call of `POST /scip`: who sent an index for which repository, and how it ended.
      this.audit.recordSoon(() => ({
        at: at.toISOString(),
        principal: principalLabel(principal),
        principal_id: principal.id,
        tool: 'POST /scip',
        scope: { repository, commit },
        repositories: stored ? [stored] : [],
        code,
        duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
        trace_id: currentTraceId() ?? null,
        request_id: randomUUID(),
        query: null,
      }));
    }
  }

  /** Begins, streams the parts and finishes; undefined when the body was refused on the way (answered already). */
  private async upload(
    req: IncomingMessage,
    res: ServerResponse,
    begin: { repository: string; commit: string; bytes: number | undefined },
  ): Promise<ScipUpload.FinishResponse | undefined> {
    const started = await this.bus.request<ScipUpload.BeginResponse>(ScipUpload.BEGIN_SUBJECT, {
      repository: begin.repository,
      commit: begin.commit,
      ...(begin.bytes === undefined || !Number.isSafeInteger(begin.bytes) ? {} : { bytes: begin.bytes }),
    });
    const id = started.upload_id;
    let parts = 0;
    let total = 0;
    const cutter = new Parts(ScipUpload.PART_BYTES);
    const send = async (data: Buffer) => {
      await this.bus.request(ScipUpload.PART_SUBJECT, { upload_id: id, part: parts, data: data.toString('base64') });
      parts++;
    };
    try {
      // Reading pauses while a part is sent: the gateway holds at most one part and a chunk.
      for await (const chunk of req as AsyncIterable<Buffer>) {
        total += chunk.length;
        if (total > started.max_bytes) {
          await this.cancel(id, parts);
          refuse(
            req,
            res,
            busError(
              'invalid_input',
              `The SCIP index was refused: it is over the limit of ${started.max_bytes} bytes. Nothing was stored.`,
              {
                max_bytes: started.max_bytes,
              },
            ),
            413,
          );
          return undefined;
        }
        for (const part of cutter.push(chunk)) await send(part);
      }
      const last = cutter.rest();
      if (last) await send(last);
    } catch (error) {
      await this.cancel(id, parts);
      // The client went away mid-body: nothing to answer, nothing to log as a failure of the server.
      if (req.destroyed && !(error instanceof BusRequestError)) {
        throw new BusRequestError(busError('invalid_input', 'The upload ended before its body did. Nothing was stored.'));
      }
      throw error;
    }
    return this.bus.request<ScipUpload.FinishResponse>(
      ScipUpload.FINISH_SUBJECT,
      { upload_id: id, parts },
      { timeoutMs: FINISH_TIMEOUT_MS },
    );
  }

  /** Drops what arrived of an upload that will not finish (best effort: one abandoned goes within the hour anyway). */
  private async cancel(id: string, parts: number): Promise<void> {
    await this.bus.request(ScipUpload.FINISH_SUBJECT, { upload_id: id, parts, cancel: true }).catch(() => undefined);
  }

  /** An error as the client sees it: a service's error as it is; anything else logged and answered without details. */
  private failure(error: unknown): BusError {
    if (error instanceof BusRequestError) return error.error;
    this.logger.error(`SCIP upload failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return busError('internal_error', 'The upload failed on the server; it was logged. Nothing was stored.');
  }
}

/** Why an upload is refused from its headers (who sends it, what it names, how it is encoded), if it is. */
function headerRefusal(req: IncomingMessage, principal: Principal, repository: string, commit: string): BusError | undefined {
  const denied = accessRefusal('SCIP upload', 'maintain', principal);
  if (denied) return denied;
  if (repository === '' || commit === '') {
    return busError('invalid_input', 'POST /scip needs ?repository=…&commit=… (the commit the index was made at).', {
      fields: ['repository', 'commit'],
    });
  }
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding !== 'identity') return busError('invalid_input', `Unsupported Content-Encoding "${encoding}": send the index uncompressed.`);
  return undefined;
}

/** Answers `error` with its HTTP status; a body not read yet is left unread and the connection closes after. */
function refuse(req: IncomingMessage, res: ServerResponse, error: BusError, status?: number): void {
  if (res.headersSent) return;
  refuseBody(req, res);
  const { code, message, details } = error;
  writeJson(res, status ?? STATUS[code] ?? 500, {
    error: code,
    message,
    ...(details ? { details } : {}),
    retryable: ERROR_CATALOG[code].retryable,
  });
}
