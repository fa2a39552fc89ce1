/** Requests of `workspace-registry` that other services make (not tools: clients never see them). */
export * as ResolveRepositories from './resolve-repositories.js';
export * as ResolveWorkspace from './resolve-workspace.js';
export * as RepositoryFreshness from './repository-freshness.js';
export { RegisteredRepository } from './registered-repository.js';
export * as ClaimBatch from './claim-batch.js';
export * as SettleBatch from './settle-batch.js';
export { BatchFile } from './claim-batch.js';
