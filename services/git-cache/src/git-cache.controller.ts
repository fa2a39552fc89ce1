import { Controller } from '@nestjs/common';
import { GrepRepository, ListRepositoryRefs, OpenFile, SearchRepositories } from '@sextant/contracts';
import { ToolHandler } from '@sextant/messaging';
import { GitCacheService } from './git-cache.service.js';

/** Thin bus adapter: one method per tool; `@ToolHandler` validates with the tool's contract. */
@Controller()
export class GitCacheController {
  constructor(private readonly service: GitCacheService) {}

  @ToolHandler(GrepRepository)
  grep(input: GrepRepository.Request) {
    return this.service.grep(input);
  }

  @ToolHandler(ListRepositoryRefs)
  listRefs(input: ListRepositoryRefs.Request) {
    return this.service.listRefs(input);
  }

  @ToolHandler(SearchRepositories)
  searchRepositories(input: SearchRepositories.Request) {
    return this.service.searchRepositories(input);
  }

  @ToolHandler(OpenFile)
  openFile(input: OpenFile.Request) {
    return this.service.openFile(input);
  }
}
