/**
 * Every NATS subject, `<service>.<verb>.v<N>`. No literal subject string
 * appears anywhere else. A contract is never changed in place: add `.v2`
 * next to `.v1` and keep `.v1` while callers exist.
 */
export const SERVICE_NAMES = ['projects', 'vector-search', 'git-cache', 'symbol-indexer', 'workspace-registry'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export const SUBJECTS = {
  projects: {
    health: 'projects.health.v1',
    create: 'projects.create.v1',
    list: 'projects.list.v1',
    get: 'projects.get.v1',
    update: 'projects.update.v1',
    delete: 'projects.delete.v1',
    addRepository: 'projects.add-repository.v1',
    removeRepository: 'projects.remove-repository.v1',
  },
  vectorSearch: {
    health: 'vector-search.health.v1',
    search: 'vector-search.search.v1',
    ask: 'vector-search.ask.v1',
  },
  gitCache: {
    health: 'git-cache.health.v1',
    searchRepositories: 'git-cache.search-repositories.v1',
    grep: 'git-cache.grep.v1',
    listRefs: 'git-cache.list-refs.v1',
    openFile: 'git-cache.open-file.v1',
  },
  symbolIndexer: {
    health: 'symbol-indexer.health.v1',
    locateSymbol: 'symbol-indexer.locate-symbol.v1',
    fileOutline: 'symbol-indexer.file-outline.v1',
    symbolHierarchy: 'symbol-indexer.symbol-hierarchy.v1',
    relatedSymbols: 'symbol-indexer.related-symbols.v1',
    findReferences: 'symbol-indexer.find-references.v1',
    codeContext: 'symbol-indexer.code-context.v1',
    searchDependencies: 'symbol-indexer.search-dependencies.v1',
    changeImpact: 'symbol-indexer.change-impact.v1',
    recentFiles: 'symbol-indexer.recent-files.v1',
    validateSpec: 'symbol-indexer.validate-spec.v1',
  },
  workspaceRegistry: {
    health: 'workspace-registry.health.v1',
    indexRepo: 'workspace-registry.index-repo.v1',
    indexRepository: 'workspace-registry.index-repository.v1',
    syncRepo: 'workspace-registry.sync-repo.v1',
    indexStatus: 'workspace-registry.index-status.v1',
    jobStatus: 'workspace-registry.job-status.v1',
    listRepositories: 'workspace-registry.list-repositories.v1',
  },
} as const;

/** The health subject every service answers, by service name. */
export const HEALTH_SUBJECTS: Record<ServiceName, string> = {
  projects: SUBJECTS.projects.health,
  'vector-search': SUBJECTS.vectorSearch.health,
  'git-cache': SUBJECTS.gitCache.health,
  'symbol-indexer': SUBJECTS.symbolIndexer.health,
  'workspace-registry': SUBJECTS.workspaceRegistry.health,
};

/** The queue group a service's replicas share on NATS (one group per service). */
export function queueGroup(service: ServiceName): string {
  return `sextant.${service}`;
}
