import { tokenize } from '../lexical/tokenizer.js';
import { normalize, type Embedder } from './embedder.js';

/** Weight of a character trigram beside a whole token's weight of 1. */
const TRIGRAM_WEIGHT = 0.35;

/**
 * The built-in embedder, used when no embedding model is configured (none
 * can be downloaded here): each token of the code tokenizer and the
 * character trigrams of its words are hashed into `dimension` signed
 * buckets, weighted log(1 + tf), normalized. It is lexical, and says so
 * (`kind`); trigrams let `retrying` meet `retries` and `webhook` meet
 * `webHooks`, which keeps the dense side of hybrid search real and useful
 * without a model. Deterministic: the same text always gives the same vector.
 */
export class HashingEmbedder implements Embedder {
  readonly model = 'sextant-hashing-v1';
  readonly kind = 'lexical';

  constructor(readonly dimension = 256) {}

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.map((text) => this.embedOne(text));
  }

  embedOne(text: string): Float32Array {
    const counts = new Map<string, number>();
    const add = (feature: string, weight: number) => counts.set(feature, (counts.get(feature) ?? 0) + weight);
    for (const token of tokenize(text)) {
      add(token, 1);
      if (token.length > 3 && token.length <= 24) {
        const padded = `^${token}$`;
        for (let i = 0; i + 3 <= padded.length; i++) add(`#${padded.slice(i, i + 3)}`, TRIGRAM_WEIGHT);
      }
    }
    const vector = new Float32Array(this.dimension);
    for (const [feature, weight] of counts) {
      const h = fnv1a(feature);
      const value = Math.log1p(weight);
      vector[h % this.dimension] += (h & 0x80000000) === 0 ? value : -value;
    }
    return normalize(vector);
  }
}

/** 32-bit FNV-1a of a string's UTF-16 code units: fast, stable across runs and processes. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
