import { Logger } from '@nestjs/common';
import { atJobCommit, type CloneCache, type LocatorPolicy, type Spawner } from '@sextant/checkouts';
import type { IndexingStage } from '@sextant/jobs';
import type { StageBatch } from '@sextant/registry-client';
import { ServiceError } from '@sextant/work';
import type { PreciseStore } from './precise.store.js';
import { decodeScipIndex, mergeScipIndexes, type ScipIndex, type ScipLimits } from './scip-index.js';
import { runScipIndexer, type IndexerLimits } from './scip-indexer.js';
import { scipPython } from './scip-python.js';
import { scipTypescript } from './scip-typescript.js';

/** The stage name its batches are queued under (SEXTANT_INDEXING_STAGES). */
const PRECISE_STAGE = 'precise';

export type PreciseLimits = IndexerLimits &
  Pick<ScipLimits, 'maxOccurrences'> & {
    /** Files of an indexer's languages past which it is not run on a repository (`precise_failed_too_large`). */
    maxFiles: number;
  };

/** Documents one index may hold at most (a repository of more TypeScript files than this is not a target). */
const MAX_DOCUMENTS = 200_000;

/**
 * The precise stage of an indexing job (ADR 0053), after the symbols stage: once per repository and job (the first
 * of the job's batches to come takes the run; the others pass), when the repository has TypeScript or JavaScript
 * files (scip-typescript) or Python files (scip-python) and something changed since its stored index, runs each
 * indexer on the job's checkout, checks and decodes its index and replaces the repository's precise tier with their
 * union in one transaction. An indexer that fails, overruns its budget or writes an index that does not decode adds
 * a counter `precise_failed_<cause>`, which the job's status turns into a warning that names the cause (the details
 * are in this service's log), and its language's files are answered from the search tier; when no indexer gave an
 * index, the previous index stays in place (files changed since are answered from the search tier).
 */
export class PreciseStage implements IndexingStage<StageBatch> {
  readonly name = PRECISE_STAGE;
  private readonly log = new Logger('PreciseStage');
  private readonly stopping = new AbortController();

  constructor(
    private readonly deps: {
      store: PreciseStore;
      clones: CloneCache;
      policy: LocatorPolicy;
      spawner: Spawner;
      env: NodeJS.ProcessEnv;
      limits: PreciseLimits;
    },
  ) {}

  /** Stops the indexer running now, if any (its batch then ends as a failed run). */
  stop(): void {
    this.stopping.abort();
  }

  async process(batch: StageBatch): Promise<Record<string, number>> {
    const repositoryId = batch.repository.id;
    const state = await this.deps.store.state(repositoryId);
    const typescript = state.typescript + state.javascript > 0;
    if (!typescript && state.python === 0) return { precise_not_applicable: 1 };
    if (state.indexed && state.changed === 0 && state.commit === batch.commit) return { precise_unchanged: 1 };
    const startedAt = await this.deps.store.claim(repositoryId, batch.jobId, batch.id);
    if (!startedAt) return {};
    return atJobCommit(this.deps, batch, async (dir, commit): Promise<Record<string, number>> => {
      const name = batch.repository.name;
      const counters: Record<string, number> = { precise_ms: 0 };
      const count = (key: string, n: number) => (counters[key] = (counters[key] ?? 0) + n);
      // A language with more files than the bound is left to the search tier at once: its run would spend the time
      // budget and the memory cap and give nothing.
      const fits = (files: number, indexer: string) => {
        if (files <= this.deps.limits.maxFiles) return true;
        this.log.warn(`${name}: ${indexer} not run: ${files} files, over SYMBOLS_PRECISE_MAX_FILES (${this.deps.limits.maxFiles})`);
        count('precise_failed_too_large', 1);
        return false;
      };
      const scripts = state.typescript + state.javascript;
      const indexers = [
        ...(typescript && fits(scripts, 'scip-typescript') ? [scipTypescript(state.typescript === 0)] : []),
        ...(state.python > 0 && fits(state.python, 'scip-python') ? [scipPython(name, commit ?? 'working-tree')] : []),
      ];
      const indexes: ScipIndex[] = [];
      let occurrences = 0;
      for (const indexer of indexers) {
        const run = await runScipIndexer(this.deps.spawner, indexer, dir, {
          env: this.deps.env,
          limits: this.deps.limits,
          signal: this.stopping.signal,
        });
        count('precise_ms', run.ms);
        if (!run.ok) {
          this.log.warn(`${name}: no precise index from ${indexer.name} (${run.reason})`);
          count(`precise_failed_${run.cause}`, 1);
          continue;
        }
        try {
          const index = decodeScipIndex(run.bytes, {
            maxBytes: this.deps.limits.maxIndexBytes,
            maxDocuments: MAX_DOCUMENTS,
            // Together the indexes stay within the bound of one.
            maxOccurrences: this.deps.limits.maxOccurrences - occurrences,
          });
          occurrences += index.occurrenceCount;
          indexes.push(index);
          this.log.log(
            `${name}: precise tier from ${index.tool}: ${index.documents.length} documents, ${index.occurrenceCount} occurrences in ${run.ms} ms` +
              (run.peakRssMb === null ? '' : `, peak ${run.peakRssMb} MB`),
          );
          if (run.peakRssMb !== null) counters.precise_peak_rss_mb = Math.max(counters.precise_peak_rss_mb ?? 0, run.peakRssMb);
        } catch (error) {
          if (!(error instanceof ServiceError)) throw error;
          this.log.warn(`${name}: no precise index from ${indexer.name} (${error.busError.message})`);
          count('precise_failed_invalid_index', 1);
        }
      }
      // Nothing indexed: the previous index stays (files changed since are answered from the search tier).
      if (indexes.length === 0) {
        this.log.warn(`${name}: the precise tier keeps its previous index`);
        return counters;
      }
      const index = mergeScipIndexes(indexes);
      await this.deps.store.replace(repositoryId, commit, startedAt, index);
      return { ...counters, precise_documents: index.documents.length, precise_occurrences: index.occurrenceCount };
    });
  }
}
