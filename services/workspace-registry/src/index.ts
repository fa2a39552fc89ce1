export { WorkspaceRegistryModule } from './workspace-registry.module.js';
export { WorkspaceRegistryEnv, loadConfig, type WorkspaceRegistryConfig } from './config.js';
