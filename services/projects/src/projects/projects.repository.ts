import { Injectable } from '@nestjs/common';
import { Database, sql } from '@sextant/persistence';
import type { EntityManager } from 'typeorm';
import type { Project, ProjectSummary } from '@sextant/contracts';

interface ProjectRow {
  id: string;
  name: string;
  description: string | null;
  created_at: Date;
  updated_at: Date;
  repository_count?: number;
  repository_ids?: string[];
  total?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The key that makes names unique: compatibility-normalized and lower-cased, the same in every database locale. */
export function nameKey(name: string): string {
  return name.normalize('NFKC').toLowerCase();
}

const PROJECT_COLUMNS = `p.id, p.name, p.description, p.created_at, p.updated_at,
  ARRAY(SELECT r.repository_id FROM "projects"."project_repositories" r WHERE r.project_id = p.id ORDER BY r.repository_id) AS repository_ids`;

/** Every statement of the service, named so each is prepared once per connection. */
const SQL = {
  byName: sql('by-name', `SELECT ${PROJECT_COLUMNS} FROM "projects"."projects" p WHERE p.name_key = $1`),
  byIdOrName: sql(
    'by-id-or-name',
    `SELECT ${PROJECT_COLUMNS} FROM "projects"."projects" p WHERE p.id = $1 OR p.name_key = $2 ORDER BY (p.id = $1) DESC LIMIT 1`,
  ),
  lockByName: sql('lock-by-name', `SELECT p.id FROM "projects"."projects" p WHERE p.name_key = $1 FOR UPDATE`),
  lockByIdOrName: sql(
    'lock-by-id-or-name',
    `SELECT p.id FROM "projects"."projects" p WHERE p.id = $1 OR p.name_key = $2 ORDER BY (p.id = $1) DESC LIMIT 1 FOR UPDATE`,
  ),
  byId: sql('by-id', `SELECT ${PROJECT_COLUMNS} FROM "projects"."projects" p WHERE p.id = $1`),
  list: sql(
    'list',
    `SELECT p.id, p.name, p.description, p.created_at, p.updated_at,
            (SELECT count(*) FROM "projects"."project_repositories" r WHERE r.project_id = p.id)::int AS repository_count,
            count(*) OVER () AS total
     FROM "projects"."projects" p WHERE ($2::uuid[] IS NULL OR p.id = ANY($2::uuid[])) ORDER BY p.name_key, p.id LIMIT $1`,
  ),
  held: sql('held', `SELECT DISTINCT repository_id FROM "projects"."project_repositories" WHERE repository_id = ANY($1::text[])`),
  membersOf: sql('members-of', `SELECT DISTINCT repository_id FROM "projects"."project_repositories" WHERE project_id = ANY($1::uuid[])`),
  count: sql('count', `SELECT count(*)::int AS n FROM "projects"."projects" p WHERE ($1::uuid[] IS NULL OR p.id = ANY($1::uuid[]))`),
  insert: sql('insert', `INSERT INTO "projects"."projects" (id, name, name_key, description) VALUES ($1, $2, $3, $4)`),
  rename: sql('rename', `UPDATE "projects"."projects" SET name = $2, name_key = $3, updated_at = now() WHERE id = $1`),
  describe: sql('describe', `UPDATE "projects"."projects" SET description = $2, updated_at = now() WHERE id = $1`),
  touch: sql('touch', `UPDATE "projects"."projects" SET updated_at = now() WHERE id = $1`),
  delete: sql('delete', `DELETE FROM "projects"."projects" WHERE id = $1`),
  addMembers: sql(
    'add-members',
    `INSERT INTO "projects"."project_repositories" (project_id, repository_id) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING`,
  ),
  removeMembers: sql(
    'remove-members',
    `DELETE FROM "projects"."project_repositories" WHERE project_id = $1 AND repository_id = ANY($2::text[])`,
  ),
  removeAllMembers: sql('remove-all-members', `DELETE FROM "projects"."project_repositories" WHERE project_id = $1`),
  // A merged-away repository id (ADR 0044): its projects hold the repository it was merged into.
  moveMembers: sql(
    'move-members',
    `WITH moved AS (
       DELETE FROM "projects"."project_repositories" WHERE repository_id = $1 RETURNING project_id
     )
     INSERT INTO "projects"."project_repositories" (project_id, repository_id) SELECT project_id, $2 FROM moved ON CONFLICT DO NOTHING`,
  ),
};

/** SQL of the projects service. Methods taking a manager run inside the caller's transaction. */
@Injectable()
export class ProjectsRepository {
  constructor(private readonly db: Database) {}

  /** Every membership of repository `from` becomes one of `to` (the registry merged them); how many moved. */
  async moveMembers(from: string, to: string): Promise<number> {
    return (await this.db.run(SQL.moveMembers, [from, to])).rowCount ?? 0;
  }

  /** By id (when `ref` is a UUID) or by name, case-insensitively; an id match wins. */
  async find(ref: string, manager?: EntityManager): Promise<Project | undefined> {
    const { rows } = UUID.test(ref)
      ? await this.db.run<ProjectRow>(SQL.byIdOrName, [ref.toLowerCase(), nameKey(ref)], manager)
      : await this.db.run<ProjectRow>(SQL.byName, [nameKey(ref)], manager);
    return rows[0] && toProject(rows[0]);
  }

  /** Like `find`, locking the project row until the transaction ends (writers on one project take turns). */
  async lock(ref: string, manager: EntityManager): Promise<Project | undefined> {
    const { rows } = UUID.test(ref)
      ? await this.db.run<{ id: string }>(SQL.lockByIdOrName, [ref.toLowerCase(), nameKey(ref)], manager)
      : await this.db.run<{ id: string }>(SQL.lockByName, [nameKey(ref)], manager);
    return rows[0] && this.byId(rows[0].id, manager);
  }

  async byId(id: string, manager?: EntityManager): Promise<Project | undefined> {
    const { rows } = await this.db.run<ProjectRow>(SQL.byId, [id], manager);
    return rows[0] && toProject(rows[0]);
  }

  /** The first `limit` projects by name, of `only` when given (the ones a caller may read). */
  async list(limit: number, only?: readonly string[]): Promise<{ projects: ProjectSummary[]; total: number }> {
    const ids = only ? only.filter((id) => UUID.test(id)) : null;
    const { rows } = await this.db.run<ProjectRow>(SQL.list, [limit, ids]);
    const total = rows.length > 0 ? Number(rows[0].total) : (await this.db.run<{ n: number }>(SQL.count, [ids])).rows[0].n;
    return { projects: rows.map(toSummary), total };
  }

  /** Those of `repositoryIds` that some project holds. */
  async held(repositoryIds: readonly string[]): Promise<Set<string>> {
    if (repositoryIds.length === 0) return new Set();
    return new Set((await this.db.run<{ repository_id: string }>(SQL.held, [repositoryIds])).rows.map((r) => r.repository_id));
  }

  /** The repository ids of these projects' members. */
  async membersOf(projectIds: readonly string[]): Promise<string[]> {
    const ids = projectIds.filter((id) => UUID.test(id));
    if (ids.length === 0) return [];
    return (await this.db.run<{ repository_id: string }>(SQL.membersOf, [ids])).rows.map((r) => r.repository_id);
  }

  async insert(manager: EntityManager, project: { id: string; name: string; description: string | null }): Promise<void> {
    await this.db.run(SQL.insert, [project.id, project.name, nameKey(project.name), project.description], manager);
  }

  async rename(manager: EntityManager, id: string, name: string): Promise<void> {
    await this.db.run(SQL.rename, [id, name, nameKey(name)], manager);
  }

  async describe(manager: EntityManager, id: string, description: string | null): Promise<void> {
    await this.db.run(SQL.describe, [id, description], manager);
  }

  async touch(manager: EntityManager, id: string): Promise<void> {
    await this.db.run(SQL.touch, [id], manager);
  }

  async delete(manager: EntityManager, id: string): Promise<void> {
    await this.db.run(SQL.delete, [id], manager);
  }

  /** Adds members; returns how many were new. */
  async addMembers(manager: EntityManager, projectId: string, repositoryIds: readonly string[]): Promise<number> {
    if (repositoryIds.length === 0) return 0;
    return (await this.db.run(SQL.addMembers, [projectId, repositoryIds], manager)).rowCount;
  }

  /** Removes the given members, or all of them; returns how many were removed. */
  async removeMembers(manager: EntityManager, projectId: string, repositoryIds?: readonly string[]): Promise<number> {
    const result = repositoryIds
      ? await this.db.run(SQL.removeMembers, [projectId, repositoryIds], manager)
      : await this.db.run(SQL.removeAllMembers, [projectId], manager);
    return result.rowCount;
  }
}

function toSummary(row: ProjectRow): ProjectSummary {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    repository_count: Number(row.repository_count ?? row.repository_ids?.length ?? 0),
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

function toProject(row: ProjectRow): Project {
  const repository_ids = row.repository_ids ?? [];
  return { ...toSummary({ ...row, repository_count: repository_ids.length }), repository_ids };
}
