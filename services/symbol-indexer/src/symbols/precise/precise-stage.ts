import { Logger } from '@nestjs/common';
import { atJobCommit, type CloneCache, type LocatorPolicy, type Spawner } from '@sextant/checkouts';
import type { IndexingStage } from '@sextant/jobs';
import type { StageBatch } from '@sextant/registry-client';
import { ServiceError } from '@sextant/work';
import type { PreciseStore } from './precise.store.js';
import { decodeScipIndex, type ScipLimits } from './scip-index.js';
import { runScipTypescript, type IndexerLimits } from './scip-typescript.js';

/** The stage name its batches are queued under (SEXTANT_INDEXING_STAGES). */
const PRECISE_STAGE = 'precise';

export type PreciseLimits = IndexerLimits & Pick<ScipLimits, 'maxOccurrences'>;

/** Documents one index may hold at most (a repository of more TypeScript files than this is not a target). */
const MAX_DOCUMENTS = 200_000;

/**
 * The precise stage of an indexing job (ADR 0053), after the symbols stage: once per repository and job (the first
 * of the job's batches to come takes the run; the others pass), when the repository has TypeScript or JavaScript
 * files and something changed since its stored index, runs scip-typescript on the job's checkout, checks and decodes
 * its index and replaces the repository's precise tier with it in one transaction. An indexer that fails, overruns
 * its budget or writes an index that does not decode leaves the previous index in place (files changed since are
 * answered from the search tier) and the job completes with a counter `precise_failed_<cause>`, which the job's
 * status turns into a warning that names the cause; the details are in this service's log.
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
    if (state.typescript + state.javascript === 0) return { precise_not_applicable: 1 };
    if (state.indexed && state.changed === 0 && state.commit === batch.commit) return { precise_unchanged: 1 };
    const startedAt = await this.deps.store.claim(repositoryId, batch.jobId, batch.id);
    if (!startedAt) return {};
    return atJobCommit(this.deps, batch, async (dir, commit): Promise<Record<string, number>> => {
      const run = await runScipTypescript(this.deps.spawner, dir, {
        javascriptOnly: state.typescript === 0,
        env: this.deps.env,
        limits: this.deps.limits,
        signal: this.stopping.signal,
      });
      const name = batch.repository.name;
      if (!run.ok) {
        this.log.warn(`${name}: the precise tier keeps its previous index (${run.reason})`);
        return { [`precise_failed_${run.cause}`]: 1, precise_ms: run.ms };
      }
      let index;
      try {
        index = decodeScipIndex(run.bytes, {
          maxBytes: this.deps.limits.maxIndexBytes,
          maxDocuments: MAX_DOCUMENTS,
          maxOccurrences: this.deps.limits.maxOccurrences,
        });
      } catch (error) {
        if (!(error instanceof ServiceError)) throw error;
        this.log.warn(`${name}: the precise tier keeps its previous index (${error.busError.message})`);
        return { precise_failed_invalid_index: 1, precise_ms: run.ms };
      }
      await this.deps.store.replace(repositoryId, commit, startedAt, index);
      this.log.log(
        `${name}: precise tier from ${index.tool}: ${index.documents.length} documents, ${index.occurrenceCount} occurrences in ${run.ms} ms` +
          (run.peakRssMb === null ? '' : `, peak ${run.peakRssMb} MB`),
      );
      return {
        precise_documents: index.documents.length,
        precise_occurrences: index.occurrenceCount,
        precise_ms: run.ms,
        ...(run.peakRssMb === null ? {} : { precise_peak_rss_mb: run.peakRssMb }),
      };
    });
  }
}
