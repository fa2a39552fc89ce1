import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** A scripted answer for the next request instead of embeddings. */
export type EmbeddingsFault =
  /** An HTTP error with an OpenAI-style error body (429 with `retryAfter` sends `Retry-After` in seconds). */
  | { status: number; message?: string; retryAfter?: number }
  /** The connection is closed without an answer. */
  | { drop: true }
  /** The answer comes this late. */
  | { delayMs: number }
  /** Vectors of another size than the model's. */
  | { dimension: number };

export interface FakeEmbeddingsOptions {
  model?: string;
  dimension?: number;
  /** When set, requests must carry `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /**
   * Capacity like one accelerator's: requests are served one at a time, each
   * taking `perRequestMs + perInputMs × inputs`. Unset: no delay, served at once.
   */
  serial?: { perRequestMs: number; perInputMs: number };
}

export interface FakeEmbeddings {
  /** Base URL, as `EMBEDDINGS_URL` takes it: `http://127.0.0.1:<port>/v1`. */
  url: string;
  readonly model: string;
  readonly dimension: number;
  /** Every request that reached the endpoint: inputs per request, and its model. */
  requests: Array<{ inputs: number; model: unknown; authorization: string | undefined }>;
  /** Queues faults: each answers one request, in order. */
  fail(faults: EmbeddingsFault[]): void;
  /** The vector this fake gives a text (for a test's own expectations). */
  vectorOf(text: string): number[];
  close(): Promise<void>;
}

/** Request fields of OpenAI's `POST /v1/embeddings` (others are refused, as OpenAI refuses them). */
const FIELDS = new Set(['model', 'input', 'encoding_format', 'dimensions', 'user']);
/** OpenAI's limit of inputs per request. */
const MAX_INPUTS = 2048;

/**
 * A local server speaking OpenAI's embeddings wire format (`POST
 * /v1/embeddings`: request, answer and error bodies as OpenAI documents
 * them) — the stand-in for OpenAI, Ollama, vLLM or TEI in tests and
 * benches. Its vectors are bag-of-words feature hashes (so texts sharing
 * words are near), deterministic, normalized.
 */
export async function startFakeEmbeddings(options: FakeEmbeddingsOptions = {}): Promise<FakeEmbeddings> {
  const model = options.model ?? 'fake-embed-small';
  const dimension = options.dimension ?? 64;
  const requests: FakeEmbeddings['requests'] = [];
  const faults: EmbeddingsFault[] = [];
  const sockets = new Set<Socket>();
  let queue: Promise<void> = Promise.resolve();

  const error = (res: ServerResponse, status: number, message: string, type = 'invalid_request_error', code: string | null = null) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message, type, param: null, code } }));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, raw: string) => {
    if (req.method !== 'POST' || req.url !== '/v1/embeddings') return error(res, 404, `Unknown request URL: ${req.method} ${req.url}`);
    const authorization = req.headers.authorization;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return error(res, 400, 'We could not parse the JSON body of your request.');
    }
    const inputs = Array.isArray(body.input) ? body.input : [body.input];
    requests.push({ inputs: inputs.length, model: body.model, authorization });
    if (options.apiKey && authorization !== `Bearer ${options.apiKey}`) {
      return error(res, 401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
    }
    const unknown = Object.keys(body).find((k) => !FIELDS.has(k));
    if (unknown) return error(res, 400, `Unrecognized request argument supplied: ${unknown}`);
    if (body.model !== model)
      return error(res, 404, `The model \`${String(body.model)}\` does not exist`, 'invalid_request_error', 'model_not_found');
    if (inputs.length === 0 || inputs.length > MAX_INPUTS || inputs.some((t) => typeof t !== 'string' || t.length === 0)) {
      return error(res, 400, `'$.input' is invalid: a non-empty string or an array of 1 to ${MAX_INPUTS} non-empty strings is expected.`);
    }
    if (body.encoding_format !== undefined && body.encoding_format !== 'float') {
      return error(res, 400, `encoding_format ${String(body.encoding_format)} is not supported by this fake.`);
    }
    const fault = faults.shift();
    if (fault && 'drop' in fault) return req.socket.destroy();
    if (fault && 'status' in fault) {
      res.setHeader('content-type', 'application/json');
      if (fault.retryAfter !== undefined) res.setHeader('retry-after', String(fault.retryAfter));
      res.writeHead(fault.status);
      return res.end(
        JSON.stringify({ error: { message: fault.message ?? `fault ${fault.status}`, type: 'server_error', param: null, code: null } }),
      );
    }
    if (fault && 'delayMs' in fault) await new Promise((r) => setTimeout(r, fault.delayMs));
    if (options.serial) {
      const { perRequestMs, perInputMs } = options.serial;
      const turn = queue.then(() => new Promise<void>((r) => setTimeout(r, perRequestMs + perInputMs * inputs.length)));
      queue = turn;
      await turn;
    }
    const size = fault && 'dimension' in fault ? fault.dimension : dimension;
    const data = (inputs as string[]).map((text, index) => ({ object: 'embedding', index, embedding: bagOfWords(text, size) }));
    const tokens = (inputs as string[]).reduce((n, t) => n + Math.ceil(t.length / 4), 0);
    if (res.destroyed) return;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ object: 'list', data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } }));
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void handle(req, res, Buffer.concat(chunks).toString('utf8')).catch(() => res.destroy()));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/v1`,
    model,
    dimension,
    requests,
    fail: (list) => faults.push(...list),
    vectorOf: (text) => bagOfWords(text, dimension),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Lower-cased words (camelCase and snake_case split) hashed into `size` signed buckets, L2-normalized. */
function bagOfWords(text: string, size: number): number[] {
  const vector = new Array<number>(size).fill(0);
  const words = text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1);
  for (const word of words) {
    let h = 2166136261;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
    h >>>= 0;
    vector[h % size] += h & 1 ? 1 : -1;
  }
  const norm = Math.sqrt(vector.reduce((s, v) => s + v * v, 0)) || 1;
  return vector.map((v) => v / norm);
}
