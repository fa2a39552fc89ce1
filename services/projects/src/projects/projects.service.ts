import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  AddRepositoryToProject,
  CreateProject,
  DeleteProject,
  GetProject,
  ListProjects,
  LOCAL_PRINCIPAL,
  ReadableRepositories,
  principalLabel,
  PROJECT_LIMITS,
  projectRole,
  readableProjects,
  RemoveRepositoryFromProject,
  UpdateProject,
  type Principal,
  type Project,
} from '@sextant/contracts';
import { BUS_CLIENT, type BusClient } from '@sextant/messaging';
import { RegistryClient } from '@sextant/registry-client';
import { currentPrincipal, ServiceError } from '@sextant/work';
import { Database, uniqueViolation } from '@sextant/persistence';
import type { EntityManager } from 'typeorm';
import { ProjectsRepository } from './projects.repository.js';

/**
 * Projects: named groups of repositories. Every write is one transaction,
 * so a failure (database gone mid-way included) leaves nothing half-written.
 * Members are repositories of the registry: what a caller names (an id, a
 * name, a URL) is resolved by workspace-registry and stored as its id.
 */
@Injectable()
export class ProjectsService {
  private readonly registry: RegistryClient;

  constructor(
    private readonly db: Database,
    private readonly repo: ProjectsRepository,
    @Inject(BUS_CLIENT) bus: BusClient,
  ) {
    this.registry = new RegistryClient(bus);
  }

  async create(input: CreateProject.Request): Promise<CreateProject.Response> {
    const id = randomUUID();
    const members = await this.registryIds(input.repository_ids ?? [], 'repository_ids');
    const project = await this.write(input.name, async (m) => {
      await this.repo.insert(m, { id, name: input.name.normalize('NFC'), description: input.description ?? null });
      await this.repo.addMembers(m, id, members);
      return this.repo.byId(id, m);
    });
    return { project: project! };
  }

  async list(input: ListProjects.Request): Promise<ListProjects.Response> {
    // Only the projects the caller holds a role in (an admin: all).
    const readable = readableProjects(caller());
    const { projects, total } = await this.repo.list(input.limit, readable && [...readable]);
    return { projects, total, truncated: total > projects.length };
  }

  /** What the caller may read and maintain: every repository (an admin), or the members of its projects. */
  async readableRepositories(): Promise<ReadableRepositories.Response> {
    const principal = caller();
    const readable = readableProjects(principal);
    if (!readable) return { all: true, repository_ids: [], maintained_ids: [] };
    const maintained = Object.keys(principal.projects).filter((id) => principal.projects[id] === 'maintainer');
    const [repositoryIds, maintainedIds] = await Promise.all([this.repo.membersOf([...readable]), this.repo.membersOf(maintained)]);
    return { all: false, repository_ids: repositoryIds, maintained_ids: maintainedIds };
  }

  async get(input: GetProject.Request): Promise<GetProject.Response> {
    return { project: await this.require(input.project) };
  }

  async update(input: UpdateProject.Request): Promise<UpdateProject.Response> {
    const members = input.repository_ids && (await this.registryIds(input.repository_ids, 'repository_ids'));
    const project = await this.write(input.name, async (m) => {
      const { id } = await this.require(input.project, m, 'maintain');
      if (input.name !== undefined) await this.repo.rename(m, id, input.name.normalize('NFC'));
      if (input.description !== undefined) await this.repo.describe(m, id, input.description);
      if (members) {
        await this.repo.removeMembers(m, id);
        await this.repo.addMembers(m, id, members);
        await this.repo.touch(m, id);
      }
      return this.repo.byId(id, m);
    });
    return { project: project! };
  }

  async delete(input: DeleteProject.Request): Promise<DeleteProject.Response> {
    return this.db.transaction(async (m) => {
      const project = await this.require(input.project, m, 'maintain');
      await this.repo.delete(m, project.id);
      return { deleted: true as const, project: { id: project.id, name: project.name }, repositories_removed: project.repository_count };
    });
  }

  async addRepository(input: AddRepositoryToProject.Request): Promise<AddRepositoryToProject.Response> {
    const [repositoryId] = await this.registryIds([input.repository_id], 'repository_id');
    return this.db.transaction(async (m) => {
      const project = await this.require(input.project, m, 'maintain');
      if (project.repository_ids.includes(repositoryId)) return membership(project, repositoryId, { added: false });
      if (project.repository_count >= PROJECT_LIMITS.repositoriesPerProject) {
        throw ServiceError.of(
          'invalid_input',
          `Project "${project.name}" already has ${project.repository_count} repositories, the maximum.`,
          {
            fields: { repository_id: `a project holds at most ${PROJECT_LIMITS.repositoriesPerProject} repositories` },
          },
        );
      }
      await this.repo.addMembers(m, project.id, [repositoryId]);
      await this.repo.touch(m, project.id);
      return { ...membership(project, repositoryId, { added: true }), repository_count: project.repository_count + 1 };
    });
  }

  async removeRepository(input: RemoveRepositoryFromProject.Request): Promise<RemoveRepositoryFromProject.Response> {
    // A member is removed by its id or anything that resolves to it; a repository since removed from the registry, by its id.
    const [resolved] = await this.registry.repositories([input.repository_id]);
    const repositoryId = resolved?.id ?? input.repository_id;
    return this.db.transaction(async (m) => {
      const project = await this.require(input.project, m, 'maintain');
      const removed = (await this.repo.removeMembers(m, project.id, [repositoryId])) > 0;
      if (removed) await this.repo.touch(m, project.id);
      return { ...membership(project, repositoryId, { removed }), repository_count: project.repository_count - (removed ? 1 : 0) };
    });
  }

  /**
   * The registry ids of the repositories a change names, without
   * duplicates; `not_found` naming every reference the registry does not
   * know. Placing a
   * repository in a project shares it with that project's members, so a
   * caller who may not read every repository places only those of projects
   * it maintains, or remote ones no project holds yet (a URL it has just
   * registered with index_repository). One it may read only is `forbidden`;
   * any other (another project's, a directory of the server nobody placed)
   * answers like one that is not registered.
   */
  private async registryIds(references: readonly string[], field: string): Promise<string[]> {
    if (references.length === 0) return [];
    const resolved = await this.registry.repositories(references);
    const principal = caller();
    const readable = readableProjects(principal);
    const shared: string[] = [];
    if (readable) {
      const maintained = [...readable].filter((id) => principal.projects[id] === 'maintainer');
      const [read, ours] = await Promise.all([this.repo.membersOf([...readable]), this.repo.membersOf(maintained)]);
      const [readIds, maintainedIds] = [new Set(read), new Set(ours)];
      const held = await this.repo.held(resolved.flatMap((r) => (r && !readIds.has(r.id) ? [r.id] : [])));
      resolved.forEach((r, i) => {
        if (!r) return;
        if (!readIds.has(r.id) && (r.kind === 'local' || held.has(r.id))) resolved[i] = null;
        else if (readIds.has(r.id) && !maintainedIds.has(r.id)) shared.push(references[i]);
      });
    }
    const unknown = references.filter((_, i) => !resolved[i]);
    if (unknown.length > 0) {
      const list = unknown.map((r) => `"${r}"`).join(', ');
      throw ServiceError.of(
        'not_found',
        `No registered repository is ${list} (an id, name or URL as list_repositories shows them; register one with index_repository). Nothing was changed.`,
        { [field]: unknown },
      );
    }
    if (shared.length > 0) {
      throw ServiceError.of(
        'forbidden',
        `${principalLabel(principal)} may read ${shared.map((r) => `"${r}"`).join(', ')} but not share it with another project: that needs a maintainer of a project holding it. Nothing was changed.`,
        { [field]: shared },
      );
    }
    return [...new Set(resolved.map((r) => r!.id))];
  }

  /**
   * The project, locked for the rest of the transaction when `manager` is
   * given. `not_found` when it does not exist or the caller holds no role in
   * it (the same answer: existence does not leak); `forbidden` when a
   * reader asks for a change.
   */
  private async require(ref: string, manager?: EntityManager, need: 'read' | 'maintain' = 'read'): Promise<Project> {
    const found = manager ? await this.repo.lock(ref, manager) : await this.repo.find(ref);
    const principal = caller();
    const role = found && projectRole(principal, found.id);
    if (found && role === 'reader' && need === 'maintain') {
      throw ServiceError.of(
        'forbidden',
        `${principalLabel(principal)} may read project "${found.name}" but not change it: that needs a maintainer.`,
        {
          project: ref,
          role,
        },
      );
    }
    const project = role ? found : undefined;
    if (!project) {
      throw ServiceError.of('not_found', `No project has the id or name "${ref}". Call list_projects to see the existing ones.`, {
        project: ref,
      });
    }
    return project;
  }

  /** A write transaction whose only expected conflict is a duplicate name. */
  private async write<T>(name: string | undefined, work: (m: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await this.db.transaction(work);
    } catch (error) {
      if (name !== undefined && uniqueViolation(error) === 'projects_name_key_uq') {
        throw ServiceError.of('invalid_input', `A project named "${name}" already exists (names are case-insensitive).`, {
          fields: { name: 'already used by another project' },
        });
      }
      throw error;
    }
  }
}

/** Whom the call is for: the request's principal (a tool's handler always has one: ToolHandler refuses requests without), else the local user (in-process calls). */
function caller(): Principal {
  return currentPrincipal() ?? LOCAL_PRINCIPAL;
}

function membership<T extends object>(project: Project, repositoryId: string, result: T) {
  return {
    project_id: project.id,
    project_name: project.name,
    repository_id: repositoryId,
    repository_count: project.repository_count,
    ...result,
  };
}
