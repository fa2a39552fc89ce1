import * as CreateProject from './projects/create-project.js';
import * as ListProjects from './projects/list-projects.js';
import * as GetProject from './projects/get-project.js';
import * as UpdateProject from './projects/update-project.js';
import * as DeleteProject from './projects/delete-project.js';
import * as AddRepositoryToProject from './projects/add-repository.js';
import * as RemoveRepositoryFromProject from './projects/remove-repository.js';
import * as SearchCode from './vector-search/search-code.js';
import * as AskCode from './vector-search/ask-code.js';
import * as SearchRepositories from './git-cache/search-repositories.js';
import * as GrepRepository from './git-cache/grep-repository.js';
import * as ListRepositoryRefs from './git-cache/list-repository-refs.js';
import * as OpenFile from './git-cache/open-file.js';
import * as LocateSymbol from './symbol-indexer/locate-symbol.js';
import * as GetFileOutline from './symbol-indexer/get-file-outline.js';
import * as GetSymbolHierarchy from './symbol-indexer/get-symbol-hierarchy.js';
import * as FindRelatedSymbols from './symbol-indexer/find-related-symbols.js';
import * as FindReferences from './symbol-indexer/find-references.js';
import * as GetCodeContext from './symbol-indexer/get-code-context.js';
import * as SearchDependencies from './symbol-indexer/search-dependencies.js';
import * as AnalyzeChangeImpact from './symbol-indexer/analyze-change-impact.js';
import * as ListRecentFiles from './symbol-indexer/list-recent-files.js';
import * as ValidateImplementationSpec from './symbol-indexer/validate-implementation-spec.js';
import * as IndexRepo from './workspace-registry/index-repo.js';
import * as IndexRepository from './workspace-registry/index-repository.js';
import * as SyncRepo from './workspace-registry/sync-repo.js';
import * as IndexStatus from './workspace-registry/index-status.js';
import * as GetIndexJobStatus from './workspace-registry/get-index-job-status.js';
import * as ListRepositories from './workspace-registry/list-repositories.js';
import * as HealthCheck from './workspace-registry/health-check.js';
import * as GetContract from './gateway/get-contract.js';
import type { ToolContract } from './tool.js';

export {
  CreateProject,
  ListProjects,
  GetProject,
  UpdateProject,
  DeleteProject,
  AddRepositoryToProject,
  RemoveRepositoryFromProject,
  SearchCode,
  AskCode,
  SearchRepositories,
  GrepRepository,
  ListRepositoryRefs,
  OpenFile,
  LocateSymbol,
  GetFileOutline,
  GetSymbolHierarchy,
  FindRelatedSymbols,
  FindReferences,
  GetCodeContext,
  SearchDependencies,
  AnalyzeChangeImpact,
  ListRecentFiles,
  ValidateImplementationSpec,
  IndexRepo,
  IndexRepository,
  SyncRepo,
  IndexStatus,
  GetIndexJobStatus,
  ListRepositories,
  HealthCheck,
  GetContract,
};

/** Every tool of the catalog (`tools.md`), grouped by the service that owns it. */
export const TOOLS: readonly ToolContract[] = [
  // projects
  CreateProject.tool,
  ListProjects.tool,
  GetProject.tool,
  UpdateProject.tool,
  DeleteProject.tool,
  AddRepositoryToProject.tool,
  RemoveRepositoryFromProject.tool,
  // vector-search
  SearchCode.tool,
  AskCode.tool,
  // git-cache
  SearchRepositories.tool,
  GrepRepository.tool,
  ListRepositoryRefs.tool,
  OpenFile.tool,
  // symbol-indexer
  LocateSymbol.tool,
  GetFileOutline.tool,
  GetSymbolHierarchy.tool,
  FindRelatedSymbols.tool,
  FindReferences.tool,
  GetCodeContext.tool,
  SearchDependencies.tool,
  AnalyzeChangeImpact.tool,
  ListRecentFiles.tool,
  ValidateImplementationSpec.tool,
  // workspace-registry
  IndexRepo.tool,
  IndexRepository.tool,
  SyncRepo.tool,
  IndexStatus.tool,
  GetIndexJobStatus.tool,
  ListRepositories.tool,
  HealthCheck.tool,
  // gateway
  GetContract.tool,
];

export const TOOLS_BY_NAME: ReadonlyMap<string, ToolContract> = new Map(TOOLS.map((t) => [t.name, t]));
