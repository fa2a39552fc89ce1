/** The tools of `workspace-registry`: one line per tool (its contract file holds everything else). */
export * as IndexRepo from './index-repo.js';
export * as IndexRepository from './index-repository.js';
export * as SyncRepo from './sync-repo.js';
export * as IndexStatus from './index-status.js';
export * as GetIndexJobStatus from './get-index-job-status.js';
export * as ListRepositories from './list-repositories.js';
