/** The tools of `git-cache`: one line per tool (its contract file holds everything else). */
export * as SearchRepositories from './search-repositories.js';
export * as GrepRepository from './grep-repository.js';
export * as ListRepositoryRefs from './list-repository-refs.js';
export * as OpenFile from './open-file.js';
