export { RegistryClient, type StageBatch } from './registry-client.js';
export { ReadableRepositoryIds, Scopes, single, namesOf, type Scope, type ScopeAnswer, type ScopeInput } from './scopes.js';
