/**
 * The vectors stage's work on each file's chunks inside the parse worker
 * (a `ChunkHook`): lexemes, and the built-in embedding when the collection
 * uses it — CPU work of about half a millisecond per chunk that would
 * otherwise run on the service's event loop (in embedded mode, every
 * service's). An embeddings endpoint embeds on the main thread instead
 * (it waits on the network, not the CPU).
 */
import type { Chunk, ChunkHook } from '@sextant/parsing';
import { HashingEmbedder } from '../embedding/hashing-embedder.js';
import { lexemes } from '../lexical/lexemes.js';

export interface PreparedChunk extends Chunk {
  lexemes: string;
  /** The built-in embedder's vector (when `hashingDimension` was given). */
  embedding?: Float32Array;
}

export interface ChunkHookOptions {
  /** Embed with the built-in embedder of this dimension; absent: the stage embeds. */
  hashingDimension?: number;
}

/** The text a chunk is embedded from: its header (path and symbol) and its text. */
export function embeddingText(path: string, chunk: Chunk): string {
  return `${path} ${chunk.symbol ?? ''}\n${chunk.text}`;
}

let embedder: HashingEmbedder | undefined;

const prepare: ChunkHook<PreparedChunk> = (chunks, file, options) => {
  const { hashingDimension } = options as ChunkHookOptions;
  if (hashingDimension !== undefined && embedder?.dimension !== hashingDimension) embedder = new HashingEmbedder(hashingDimension);
  return chunks.map((chunk) => ({
    ...chunk,
    lexemes: lexemes(file.path, chunk.symbol, chunk.text),
    ...(hashingDimension !== undefined ? { embedding: embedder!.embedOne(embeddingText(file.path, chunk)) } : {}),
  }));
};

export default prepare;
