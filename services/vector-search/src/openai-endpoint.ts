/**
 * What the two OpenAI-compatible clients of this service share (embeddings
 * and chat): the endpoint's URL, and one JSON POST with its key and time
 * limit whose network failures are told apart from a slow answer.
 */

/** The endpoint of `path` (`embeddings`, `chat/completions`) from its base (`…/v1`) or its full URL. */
export function endpointOf(url: string, path: string): string {
  const base = url.replace(/\/+$/, '');
  return base.endsWith(`/${path}`) ? base : `${base}/${path}`;
}

/** A POST that got no answer: the time limit passed (`timedOut`), or the endpoint could not be reached (`reason`). */
export class EndpointUnreachable extends Error {
  constructor(
    readonly timedOut: boolean,
    readonly reason: string,
  ) {
    super(timedOut ? 'no answer in time' : `could not be reached (${reason})`);
  }
}

/** POSTs `body` as JSON (with `Authorization: Bearer <apiKey>` when there is a key); throws `EndpointUnreachable` without an answer. */
export async function postJson(endpoint: string, apiKey: string | undefined, body: unknown, timeoutMs: number): Promise<Response> {
  try {
    return await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new EndpointUnreachable(timedOut, cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error)));
  }
}
