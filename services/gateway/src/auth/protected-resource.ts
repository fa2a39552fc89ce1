import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '@sextant/contracts';
import type { GatewayConfig } from '../config.js';
import { refuseBody } from '../http/connection-guard.js';
import { jsonRpcError } from '../http/json-rpc-error.js';
import type { AuthFailure, Authenticator } from './authenticator.js';

/** RFC 9728: where a protected resource describes itself; the MCP endpoint's own document is this plus `/mcp`. */
export const METADATA_PATH = '/.well-known/oauth-protected-resource';

/** The gateway's base URL as the caller reached it: SEXTANT_PUBLIC_URL, else the request's Host (already checked against the allowed hosts). */
export function baseUrl(config: Pick<GatewayConfig, 'publicUrl'>, req: IncomingMessage): string {
  return config.publicUrl ?? `http://${req.headers.host ?? `127.0.0.1`}`;
}

/**
 * The protected resource metadata (RFC 9728) of the MCP endpoint: which
 * authorization server issues its tokens, so an MCP client can run its login
 * flow after a 401. Without an identity provider (API keys only) it names none.
 */
export function protectedResourceMetadata(base: string, issuer: string | undefined): Record<string, unknown> {
  return {
    resource: `${base}/mcp`,
    authorization_servers: issuer ? [issuer] : [],
    bearer_methods_supported: ['header'],
    resource_name: 'Sextant',
  };
}

/** The `WWW-Authenticate` challenge of a 401 (RFC 6750, with the metadata's URL as the MCP authorization specification asks). */
function challenge(base: string, failure: AuthFailure): string {
  const params = [`realm="sextant"`, `resource_metadata="${base}${METADATA_PATH}/mcp"`];
  if (failure.error) params.push(`error="${failure.error}"`, `error_description="${failure.description.replace(/["\\]/g, "'")}"`);
  return `Bearer ${params.join(', ')}`;
}

/**
 * Authenticates an HTTP request from its headers; on failure writes the
 * answer (401 with its challenge, or 429 or 503 with Retry-After) and returns
 * undefined.
 */
export async function authenticateRequest(
  auth: Authenticator,
  config: Pick<GatewayConfig, 'publicUrl'>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<Principal | undefined> {
  const outcome = await auth.authenticate(req.headers.authorization, req.socket.remoteAddress ?? '');
  if ('principal' in outcome) return outcome.principal;
  const { failure } = outcome;
  // Refused from its headers: the body, if any, is never read, and the connection closes after the answer.
  refuseBody(req, res);
  if (failure.status === 401) res.setHeader('www-authenticate', challenge(baseUrl(config, req), failure));
  else res.setHeader('retry-after', String(failure.retryAfter ?? 5));
  jsonRpcError(res, failure.status, -32001, failure.status === 401 ? `Unauthorized: ${failure.description}` : failure.description);
  return undefined;
}
