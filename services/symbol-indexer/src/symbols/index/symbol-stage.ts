import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { atJobCommit, languageOf, type CloneCache, type LocatorPolicy } from '@sextant/checkouts';
import type { IndexingStage } from '@sextant/jobs';
import type { StageBatch } from '@sextant/registry-client';
import { parsedLanguages, type ParsePool } from '@sextant/parsing';
import { ImportResolver } from '../binding/import-resolver.js';
import type { IndexedFile, SymbolStore } from './symbol.store.js';

/** The stage name its batches are queued under (SEXTANT_INDEXING_STAGES). */
const SYMBOLS_STAGE = 'symbols';

/** What a file kept at file level holds. */
const EMPTY = { symbols: [], imports: [], references: [], referenceCount: 0 } as const;

/**
 * The symbols stage of an indexing job: for each changed file of a batch,
 * parses it in the worker pool, resolves its imports to files of the
 * checkout, and replaces what the index holds for it (a
 * deleted file's rows go); the whole batch is one transaction. A file that
 * cannot be parsed (no grammar, binary, past its budget, a crashed worker)
 * is kept at file level with the reason, and the job goes on.
 */
export class SymbolStage implements IndexingStage<StageBatch> {
  readonly name = SYMBOLS_STAGE;
  private readonly log = new Logger('SymbolStage');
  private readonly resolvers = new Map<string, ImportResolver>();

  constructor(private readonly deps: { store: SymbolStore; pool: ParsePool; clones: CloneCache; policy: LocatorPolicy }) {}

  process(batch: StageBatch): Promise<Record<string, number>> {
    return atJobCommit(this.deps, batch, (dir, commit) => this.index(batch, dir, commit));
  }

  /**
   * One resolver per job and checkout: what it learnt of the files (which exist, the tsconfig, go.mod) serves
   * every batch of the job; a new job looks again (the working tree or the clone may have changed).
   */
  private resolverFor(jobId: string, dir: string): ImportResolver {
    const key = `${jobId}\0${dir}`;
    let resolver = this.resolvers.get(key);
    if (!resolver) {
      if (this.resolvers.size >= 4) this.resolvers.delete(this.resolvers.keys().next().value!);
      this.resolvers.set(key, (resolver = new ImportResolver(dir)));
    }
    return resolver;
  }

  private async index(batch: StageBatch, dir: string, commit: string | null): Promise<Record<string, number>> {
    const deleted = batch.items.filter((f) => f.change === 'deleted').map((f) => f.path);
    const resolver = this.resolverFor(batch.jobId, dir);
    const files = await Promise.all(
      batch.items
        .filter((f) => f.change !== 'deleted')
        .map(async ({ path }): Promise<IndexedFile> => {
          const language = languageOf(path);
          if (!language) return { path, language, skipped: 'unsupported_language', ...EMPTY };
          const outcome = await this.deps.pool.parse(join(dir, path), language);
          if ('skipped' in outcome) {
            if (outcome.skipped === 'worker_failed' || outcome.skipped === 'grammar_unavailable') {
              this.log.warn(`${batch.repository.name}/${path}: kept at file level (${outcome.skipped}: ${outcome.reason})`);
            }
            return { path, language, skipped: outcome.skipped, ...EMPTY };
          }
          const scheme = parsedLanguages().get(language)?.resolver ?? null;
          const imports = outcome.imports.flatMap((i) => resolver.resolveAll(scheme, path, i));
          return {
            path,
            language,
            skipped: null,
            symbols: outcome.symbols,
            imports,
            references: outcome.references,
            referenceCount: outcome.referenceCount,
          };
        }),
    );
    const delta = await this.deps.store.replace(batch.repository.id, commit, files, deleted);
    const parsed = files.filter((f) => f.skipped === null);
    // Per cause, so the job can warn about what went wrong (a grammar that failed to load, a crashed worker) apart from what is expected.
    const skipped: Record<string, number> = {};
    for (const f of files) if (f.skipped !== null) skipped[`skipped_${f.skipped}`] = (skipped[`skipped_${f.skipped}`] ?? 0) + 1;
    return {
      ...skipped,
      // Summed over the job's batches: how the repository's symbol count moved (the registry keeps the total).
      symbols_delta: delta,
      files_parsed: parsed.length,
      files_skipped: files.length - parsed.length,
      symbols_extracted: parsed.reduce((n, f) => n + f.symbols.length, 0),
      references_extracted: parsed.reduce((n, f) => n + f.referenceCount, 0),
    };
  }
}
