import { Module, type DynamicModule } from '@nestjs/common';
import { createHealthController } from '@sextant/runtime';
import type { WorkspaceRegistryConfig } from './config.js';

/**
 * Workspaces, indexing jobs and their progress: the tools arrive with their own issue; today the service answers its health subject.
 */
@Module({})
export class WorkspaceRegistryModule {
  static register(_config?: Partial<WorkspaceRegistryConfig>): DynamicModule {
    return { module: WorkspaceRegistryModule, controllers: [createHealthController('workspace-registry')] };
  }
}
