export { ProjectsModule, type ProjectsModuleOptions } from './projects.module.js';
export { loadConfig, ProjectsEnv, type ProjectsConfig } from './config.js';
