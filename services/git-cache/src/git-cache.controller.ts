import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { GrepRepository, ListRepositoryRefs, OpenFile, SearchRepositories } from '@sextant/contracts';
import { ZodPipe } from '@sextant/messaging';
import { GitCacheService } from './git-cache.service.js';

/** Thin NATS adapter: validate with the contract, call the service. */
@Controller()
export class GitCacheController {
  constructor(private readonly service: GitCacheService) {}

  @MessagePattern(GrepRepository.SUBJECT)
  grep(@Payload(new ZodPipe(GrepRepository.Request)) input: GrepRepository.Request) {
    return this.service.grep(input);
  }

  @MessagePattern(ListRepositoryRefs.SUBJECT)
  listRefs(@Payload(new ZodPipe(ListRepositoryRefs.Request)) input: ListRepositoryRefs.Request) {
    return this.service.listRefs(input);
  }

  @MessagePattern(SearchRepositories.SUBJECT)
  searchRepositories(@Payload(new ZodPipe(SearchRepositories.Request)) input: SearchRepositories.Request) {
    return this.service.searchRepositories(input);
  }

  @MessagePattern(OpenFile.SUBJECT)
  openFile(@Payload(new ZodPipe(OpenFile.Request)) input: OpenFile.Request) {
    return this.service.openFile(input);
  }
}
