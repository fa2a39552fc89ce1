import { Module, type DynamicModule } from '@nestjs/common';
import { createHealthController } from '@sextant/runtime';
import type { VectorSearchConfig } from './config.js';

/**
 * Semantic search and answers (search_code, ask_code): the tools arrive with their own issue; today the service answers its health subject.
 */
@Module({})
export class VectorSearchModule {
  static register(_config?: Partial<VectorSearchConfig>): DynamicModule {
    return { module: VectorSearchModule, controllers: [createHealthController('vector-search')] };
  }
}
