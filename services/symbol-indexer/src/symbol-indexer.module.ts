import { Module, type DynamicModule } from '@nestjs/common';
import { createHealthController } from '@sextant/runtime';
import type { SymbolIndexerConfig } from './config.js';

/**
 * Symbols, outlines, references and dependency impact: the tools arrive with their own issue; today the service answers its health subject.
 */
@Module({})
export class SymbolIndexerModule {
  static register(_config?: Partial<SymbolIndexerConfig>): DynamicModule {
    return { module: SymbolIndexerModule, controllers: [createHealthController('symbol-indexer')] };
  }
}
