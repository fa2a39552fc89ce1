import { Module, type DynamicModule } from '@nestjs/common';
import { createHealthController } from '@sextant/runtime';
import type { GitCacheConfig } from './config.js';

/**
 * Clone cache, grep, refs and files (grep_repository, list_repository_refs, search_repositories, open_file): the tools arrive with their own issue; today the service answers its health subject.
 */
@Module({})
export class GitCacheModule {
  static register(_config?: Partial<GitCacheConfig>): DynamicModule {
    return { module: GitCacheModule, controllers: [createHealthController('git-cache')] };
  }
}
