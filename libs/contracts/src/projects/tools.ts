/** The tools of `projects`: one line per tool (its contract file holds everything else). */
export * as CreateProject from './create-project.js';
export * as ListProjects from './list-projects.js';
export * as GetProject from './get-project.js';
export * as UpdateProject from './update-project.js';
export * as DeleteProject from './delete-project.js';
export * as AddRepositoryToProject from './add-repository.js';
export * as RemoveRepositoryFromProject from './remove-repository.js';
