export { ProjectsModule, type ProjectsModuleOptions } from './projects.module.js';
export { loadConfig, ProjectsEnv, type ProjectsConfig } from './config.js';
export { ApiKeys, keyDigest, type ApiKeyInfo } from './keys/api-keys.js';
export { ProjectsRepository } from './projects/projects.repository.js';
export { MIGRATIONS as PROJECTS_MIGRATIONS } from './migrations/index.js';
