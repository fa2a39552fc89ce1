import { Controller } from '@nestjs/common';
import {
  ClaimBatch,
  GetIndexJobStatus,
  IndexRepo,
  IndexRepository,
  IndexStatus,
  ListRepositories,
  RepositoryFreshness,
  ResolveRepositories,
  ResolveWorkspace,
  SettleBatch,
  SyncRepo,
} from '@sextant/contracts';
import { ToolHandler } from '@sextant/messaging';
import { RegistryService } from './registry.service.js';

/** Thin bus adapter: one method per tool; `@ToolHandler` validates with the tool's contract. */
@Controller()
export class RegistryController {
  constructor(private readonly service: RegistryService) {}

  @ToolHandler(IndexRepo)
  indexRepo(input: IndexRepo.Request) {
    return this.service.indexRepo(input);
  }

  @ToolHandler(SyncRepo)
  syncRepo(input: SyncRepo.Request) {
    return this.service.syncRepo(input);
  }

  @ToolHandler(IndexRepository)
  indexRepository(input: IndexRepository.Request) {
    return this.service.indexRepository(input);
  }

  @ToolHandler(IndexStatus)
  indexStatus(input: IndexStatus.Request) {
    return this.service.indexStatus(input);
  }

  @ToolHandler(GetIndexJobStatus)
  jobStatus(input: GetIndexJobStatus.Request) {
    return this.service.jobStatus(input);
  }

  @ToolHandler(ListRepositories)
  listRepositories(input: ListRepositories.Request) {
    return this.service.listRepositories(input);
  }

  @ToolHandler(ResolveRepositories)
  resolveRepositories(input: ResolveRepositories.Request) {
    return this.service.resolveRepositories(input);
  }

  @ToolHandler(RepositoryFreshness)
  freshness(input: RepositoryFreshness.Request) {
    return this.service.freshness(input);
  }

  @ToolHandler(ResolveWorkspace)
  resolveWorkspace(input: ResolveWorkspace.Request) {
    return this.service.resolveWorkspace(input);
  }

  @ToolHandler(ClaimBatch)
  claimBatch(input: ClaimBatch.Request) {
    return this.service.claimBatch(input);
  }

  @ToolHandler(SettleBatch)
  settleBatch(input: SettleBatch.Request) {
    return this.service.settleBatch(input);
  }
}
