import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { atJobCommit, languageOf, type CloneCache, type LocatorPolicy } from '@sextant/checkouts';
import type { IndexingStage } from '@sextant/jobs';
import type { StageBatch } from '@sextant/registry-client';
import type { ParsePool } from '@sextant/parsing';
import type { Embedder } from '../embedding/embedder.js';
import { embeddingText, type PreparedChunk } from './chunk-hook.js';
import type { ChunkRow, ChunkStore } from '../store/chunk-store.js';

/** The stage name its batches are queued under (SEXTANT_INDEXING_STAGES). */
const VECTORS_STAGE = 'vectors';

/**
 * The vectors stage of an indexing job: each changed file is cut into
 * chunks in the parse pool (by its definitions where a grammar parses it,
 * else by its text), each chunk gets its lexemes and its embedding (of its
 * header — path and symbol — and text), and the batch's files are replaced
 * in the collection at once (a deleted file's chunks go).
 */
export class VectorStage implements IndexingStage<StageBatch> {
  readonly name = VECTORS_STAGE;
  private readonly log = new Logger('VectorStage');

  constructor(
    private readonly deps: { store: ChunkStore; embedder: Embedder; pool: ParsePool; clones: CloneCache; policy: LocatorPolicy },
  ) {}

  process(batch: StageBatch): Promise<Record<string, number>> {
    return atJobCommit(this.deps, batch, (dir, commit) => this.index(batch, dir, commit));
  }

  private async index(batch: StageBatch, dir: string, commit: string | null): Promise<Record<string, number>> {
    const deleted = batch.items.filter((f) => f.change === 'deleted').map((f) => f.path);
    const skipped: Record<string, number> = {};
    const files = await Promise.all(
      batch.items
        .filter((f) => f.change !== 'deleted')
        .map(async ({ path }) => {
          const language = languageOf(path);
          const outcome = await this.deps.pool.chunk<PreparedChunk>(join(dir, path), language, path);
          if ('skipped' in outcome) {
            skipped[`vector_skipped_${outcome.skipped}`] = (skipped[`vector_skipped_${outcome.skipped}`] ?? 0) + 1;
            if (outcome.skipped === 'worker_failed') this.log.warn(`${batch.repository.name}/${path}: not chunked (${outcome.reason})`);
            return { path, language, chunks: [] };
          }
          return { path, language, chunks: outcome.chunks };
        }),
    );
    const pending = files.flatMap((f) => f.chunks.map((chunk, ordinal) => ({ file: f, chunk, ordinal })));
    // The built-in embedder ran in the parse worker (the pool's chunk hook); an endpoint gets the batch's chunks in one call,
    // which it cuts into requests and keeps several in flight.
    const missing = pending.filter(({ chunk }) => !chunk.embedding);
    const embedded =
      missing.length > 0 ? await this.deps.embedder.embed(missing.map(({ file, chunk }) => embeddingText(file.path, chunk))) : [];
    missing.forEach((p, i) => (p.chunk.embedding = embedded[i]));
    const rows = new Map<string, ChunkRow[]>(files.map((f) => [f.path, []]));
    pending.forEach(({ file, chunk, ordinal }) => {
      rows.get(file.path)!.push({
        path: file.path,
        ordinal,
        startLine: chunk.startLine,
        endLine: chunk.endLine,
        language: file.language,
        symbol: chunk.symbol,
        content: chunk.text,
        lexemes: chunk.lexemes,
        embedding: chunk.embedding!,
      });
    });
    await this.deps.store.replace(
      batch.repository,
      commit,
      [...rows].map(([path, chunks]) => ({ path, chunks })),
      deleted,
    );
    return { ...skipped, chunks_indexed: pending.length, files_chunked: files.length - Object.values(skipped).reduce((a, b) => a + b, 0) };
  }
}
