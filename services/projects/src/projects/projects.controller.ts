import { Controller } from '@nestjs/common';
import {
  AddRepositoryToProject,
  CreateProject,
  DeleteProject,
  GetProject,
  ListProjects,
  MoveMemberships,
  ReadableRepositories,
  RemoveRepositoryFromProject,
  UpdateProject,
} from '@sextant/contracts';
import { ToolHandler } from '@sextant/messaging';
import { ProjectsRepository } from './projects.repository.js';
import { ProjectsService } from './projects.service.js';

/** Thin bus adapter: one method per tool; `@ToolHandler` validates with the tool's contract. */
@Controller()
export class ProjectsController {
  constructor(
    private readonly projects: ProjectsService,
    private readonly repository: ProjectsRepository,
  ) {}

  /** The registry merged repositories that were one (ADR 0044): their memberships follow. */
  @ToolHandler(MoveMemberships)
  async moveMemberships(input: MoveMemberships.Request): Promise<MoveMemberships.Response> {
    let moved = 0;
    for (const { from, to } of input.moves) moved += await this.repository.moveMembers(from, to);
    return { moved };
  }

  @ToolHandler(CreateProject)
  create(input: CreateProject.Request) {
    return this.projects.create(input);
  }

  @ToolHandler(ListProjects)
  list(input: ListProjects.Request) {
    return this.projects.list(input);
  }

  @ToolHandler(GetProject)
  get(input: GetProject.Request) {
    return this.projects.get(input);
  }

  @ToolHandler(UpdateProject)
  update(input: UpdateProject.Request) {
    return this.projects.update(input);
  }

  @ToolHandler(DeleteProject)
  delete(input: DeleteProject.Request) {
    return this.projects.delete(input);
  }

  @ToolHandler(AddRepositoryToProject)
  addRepository(input: AddRepositoryToProject.Request) {
    return this.projects.addRepository(input);
  }

  /** Internal: what the caller of the request a service answers may read. */
  @ToolHandler(ReadableRepositories)
  readableRepositories() {
    return this.projects.readableRepositories();
  }

  @ToolHandler(RemoveRepositoryFromProject)
  removeRepository(input: RemoveRepositoryFromProject.Request) {
    return this.projects.removeRepository(input);
  }
}
