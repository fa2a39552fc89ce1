import { setTimeout as sleep } from 'node:timers/promises';
import { EndpointUnreachable, endpointOf, postJson } from '../openai-endpoint.js';
import { normalize, type EmbedOptions, type Embedder } from './embedder.js';

export interface EndpointEmbedderOptions {
  /** The endpoint's base (`…/v1`) or its full `…/embeddings` URL. */
  url: string;
  model: string;
  /** The model's vector size; an answer of another size is an error, never stored. */
  dimension: number;
  apiKey: string | undefined;
  /** Texts per request. */
  batchSize: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** Per request. */
  timeoutMs: number;
  /** Retries of a request that failed for a reason that may pass (network, timeout, 429, 5xx), with backoff. */
  retries: number;
  /** Characters of a text sent at most (the rest is cut: models have an input limit). */
  maxChars: number;
}

/** The first pause between retries; doubled each time, with jitter, up to MAX_BACKOFF_MS. */
const BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 8_000;
/** A `Retry-After` longer than this is not waited for (the attempt fails instead). */
const MAX_RETRY_AFTER_MS = 60_000;
/** Characters of an error answer's body quoted in a message. */
const ERROR_EXCERPT = 300;

/** An embeddings call that failed; `retryable` when trying again may succeed. */
export class EmbeddingError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'EmbeddingError';
  }
}

/**
 * Any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, Ollama, vLLM,
 * TEI …): texts go in batches of `batchSize`, `concurrency` requests in
 * flight, each retried with exponential backoff on network errors,
 * timeouts, 429 (honouring `Retry-After`) and 5xx; other 4xx and answers
 * of the wrong shape or dimension fail at once with the endpoint's reason.
 */
export class EndpointEmbedder implements Embedder {
  readonly kind = 'semantic';
  private readonly endpoint: string;

  constructor(private readonly options: EndpointEmbedderOptions) {
    this.endpoint = endpointOf(options.url, 'embeddings');
  }

  get model(): string {
    return this.options.model;
  }

  get dimension(): number {
    return this.options.dimension;
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const batches: Array<readonly string[]> = [];
    for (let i = 0; i < texts.length; i += this.options.batchSize) batches.push(texts.slice(i, i + this.options.batchSize));
    const out = new Array<Float32Array[]>(batches.length);
    let next = 0;
    const lane = async () => {
      while (next < batches.length) {
        const i = next++;
        out[i] = await this.withRetries(batches[i], options.retries ?? this.options.retries, options.timeoutMs ?? this.options.timeoutMs);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.options.concurrency, batches.length) }, lane));
    return out.flat();
  }

  private async withRetries(texts: readonly string[], retries: number, timeoutMs: number): Promise<Float32Array[]> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.request(texts, timeoutMs);
      } catch (error) {
        const failure = error instanceof EmbeddingError ? error : new EmbeddingError(String(error), false);
        if (!failure.retryable || attempt >= retries) {
          throw attempt > 0 ? new EmbeddingError(`${failure.message} (after ${attempt + 1} attempts)`, false) : failure;
        }
        const backoff = Math.min(MAX_BACKOFF_MS, BACKOFF_MS * 2 ** attempt) * (0.5 + Math.random() / 2);
        await sleep(failure.retryAfterMs ?? backoff);
      }
    }
  }

  private async request(texts: readonly string[], timeoutMs: number): Promise<Float32Array[]> {
    let response: Response;
    try {
      const input = texts.map((t) => t.slice(0, this.options.maxChars) || ' ');
      response = await postJson(this.endpoint, this.options.apiKey, { model: this.options.model, input }, timeoutMs);
    } catch (error) {
      if (!(error instanceof EndpointUnreachable)) throw error;
      throw new EmbeddingError(
        error.timedOut
          ? `the embeddings endpoint ${this.endpoint} did not answer within ${timeoutMs} ms`
          : `the embeddings endpoint ${this.endpoint} could not be reached (${error.reason})`,
        true,
      );
    }
    if (!response.ok) {
      const body = (await response.text().catch(() => '')).slice(0, ERROR_EXCERPT * 4);
      const reason = errorMessageOf(body);
      const retryable = response.status === 429 || response.status >= 500;
      const retryAfter = response.status === 429 ? retryAfterMs(response.headers.get('retry-after')) : undefined;
      throw new EmbeddingError(
        `the embeddings endpoint answered ${response.status}${reason ? `: ${reason}` : ''}`,
        retryable && (retryAfter === undefined || retryAfter <= MAX_RETRY_AFTER_MS),
        retryAfter,
      );
    }
    const body = (await response.json().catch(() => undefined)) as { data?: Array<{ index?: unknown; embedding?: unknown }> } | undefined;
    const data = body?.data;
    if (!Array.isArray(data) || data.length !== texts.length) {
      throw new EmbeddingError(
        `the embeddings endpoint answered ${Array.isArray(data) ? `${data.length} embeddings for ${texts.length} inputs` : 'without a data list'}`,
        false,
      );
    }
    const vectors = new Array<Float32Array>(texts.length);
    data.forEach((item, position) => {
      const index = typeof item.index === 'number' ? item.index : position;
      const embedding = item.embedding;
      if (!Array.isArray(embedding) || index < 0 || index >= texts.length || vectors[index]) {
        throw new EmbeddingError('the embeddings endpoint answered an embedding that is not a list of numbers at a distinct index', false);
      }
      if (embedding.length !== this.options.dimension) {
        throw new EmbeddingError(
          `the embeddings endpoint answered ${embedding.length}-dimension vectors for model ${this.options.model}; EMBEDDINGS_DIMENSIONS is ${this.options.dimension} (set it to the model's size and re-index)`,
          false,
        );
      }
      const vector = Float32Array.from(embedding as number[]);
      if (vector.some((v) => !Number.isFinite(v)))
        throw new EmbeddingError('the embeddings endpoint answered a vector with non-numbers', false);
      vectors[index] = normalize(vector);
    });
    return vectors;
  }
}

/** `Retry-After` as milliseconds: seconds, or an HTTP date. */
function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** The `error.message` of an OpenAI-style error body, else the body's start. */
function errorMessageOf(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string };
    const message = typeof parsed.error === 'string' ? parsed.error : parsed.error?.message;
    if (typeof message === 'string') return message.slice(0, ERROR_EXCERPT);
  } catch {
    // not JSON
  }
  return body.replace(/\s+/g, ' ').trim().slice(0, ERROR_EXCERPT);
}
