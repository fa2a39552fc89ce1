import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  AddRepositoryToProject,
  CreateProject,
  DeleteProject,
  GetProject,
  ListProjects,
  RemoveRepositoryFromProject,
  UpdateProject,
} from '@sextant/contracts';
import { ZodPipe } from '@sextant/messaging';
import { ProjectsService } from './projects.service.js';

/** Thin NATS adapter: validate with the contract, call the service. */
@Controller()
export class ProjectsController {
  constructor(private readonly projects: ProjectsService) {}

  @MessagePattern(CreateProject.SUBJECT)
  create(@Payload(new ZodPipe(CreateProject.Request)) input: CreateProject.Request) {
    return this.projects.create(input);
  }

  @MessagePattern(ListProjects.SUBJECT)
  list(@Payload(new ZodPipe(ListProjects.Request)) input: ListProjects.Request) {
    return this.projects.list(input);
  }

  @MessagePattern(GetProject.SUBJECT)
  get(@Payload(new ZodPipe(GetProject.Request)) input: GetProject.Request) {
    return this.projects.get(input);
  }

  @MessagePattern(UpdateProject.SUBJECT)
  update(@Payload(new ZodPipe(UpdateProject.Request)) input: UpdateProject.Request) {
    return this.projects.update(input);
  }

  @MessagePattern(DeleteProject.SUBJECT)
  delete(@Payload(new ZodPipe(DeleteProject.Request)) input: DeleteProject.Request) {
    return this.projects.delete(input);
  }

  @MessagePattern(AddRepositoryToProject.SUBJECT)
  addRepository(@Payload(new ZodPipe(AddRepositoryToProject.Request)) input: AddRepositoryToProject.Request) {
    return this.projects.addRepository(input);
  }

  @MessagePattern(RemoveRepositoryFromProject.SUBJECT)
  removeRepository(@Payload(new ZodPipe(RemoveRepositoryFromProject.Request)) input: RemoveRepositoryFromProject.Request) {
    return this.projects.removeRepository(input);
  }
}
