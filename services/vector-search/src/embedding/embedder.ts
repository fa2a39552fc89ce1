/**
 * The embeddings port: texts in, unit vectors out. Each embedder names its
 * model and dimension; a collection records both, so vectors of two models
 * never mix (ADR 0020).
 */
export interface Embedder {
  /** The model id as collections record it (`sextant-hashing-v1`, `text-embedding-3-small`). */
  readonly model: string;
  readonly dimension: number;
  /** `lexical`: a feature-hashing embedder (no language model behind it); `semantic`: a real embedding model. */
  readonly kind: 'lexical' | 'semantic';
  /** One vector per text, in order, L2-normalized. */
  embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]>;
}

/** How patient one call is (an endpoint's settings otherwise): a query is not retried for long, indexing is. */
export interface EmbedOptions {
  retries?: number;
  timeoutMs?: number;
}

/** Scales a vector to length 1 (a zero vector stays zero). */
export function normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const v of vector) sum += v * v;
  if (sum === 0) return vector;
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i] *= scale;
  return vector;
}
