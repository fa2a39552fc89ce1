import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { ApiKeyGrant, ProjectRole } from '@sextant/contracts';
import { ServiceError } from '@sextant/work';
import { Database, sql, uniqueViolation } from '@sextant/persistence';
import { nameKey, ProjectsRepository } from '../projects/projects.repository.js';

/** The visible start of every key: a scanner (or a person) can tell a Sextant key in a leaked file. */
const KEY_PREFIX = 'sxt_';

/** A new key: `sxt_` and 32 random bytes (base64url). */
function newApiKey(): string {
  return `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** How keys are stored and looked up: their SHA-256, hex. */
export function keyDigest(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A key as `keys list` shows it: never the key itself. */
export interface ApiKeyInfo {
  id: string;
  name: string;
  /** The key's first characters, to tell keys apart. */
  prefix: string;
  admin: boolean;
  /** Project name → role. */
  projects: Record<string, ProjectRole>;
  createdAt: Date;
  revokedAt: Date | null;
}

const GRANTS = `coalesce((SELECT jsonb_object_agg(g.project_id, g.role) FROM "projects"."api_key_grants" g WHERE g.key_id = k.id), '{}'::jsonb)`;
const GRANTS_BY_NAME = `coalesce((SELECT jsonb_object_agg(p.name, g.role) FROM "projects"."api_key_grants" g
  JOIN "projects"."projects" p ON p.id = g.project_id WHERE g.key_id = k.id), '{}'::jsonb)`;

const SQL = {
  insert: sql(
    'keys.insert',
    `INSERT INTO "projects"."api_keys" (id, name, name_key, sha256, prefix, admin) VALUES ($1, $2, $3, $4, $5, $6)`,
  ),
  grant: sql(
    'keys.grant',
    `INSERT INTO "projects"."api_key_grants" (key_id, project_id, role) SELECT $1, unnest($2::uuid[]), $3 ON CONFLICT DO NOTHING`,
  ),
  verify: sql(
    'keys.verify',
    `SELECT k.id, k.name, k.admin, ${GRANTS} AS projects FROM "projects"."api_keys" k WHERE k.sha256 = $1 AND k.revoked_at IS NULL`,
  ),
  list: sql(
    'keys.list',
    `SELECT k.id, k.name, k.prefix, k.admin, k.created_at, k.revoked_at, ${GRANTS_BY_NAME} AS projects
     FROM "projects"."api_keys" k ORDER BY k.revoked_at IS NOT NULL, k.name_key, k.created_at`,
  ),
  revoke: sql(
    'keys.revoke',
    `UPDATE "projects"."api_keys" SET revoked_at = now()
     WHERE revoked_at IS NULL AND (id::text = $1 OR name_key = $2) RETURNING id, name`,
  ),
};

/**
 * API keys for service accounts and simple setups, owned by the projects
 * service (grants are per project): created and revoked with
 * `sextant keys …`, verified by the gateway over the bus.
 */
@Injectable()
export class ApiKeys {
  constructor(
    private readonly db: Database,
    private readonly projects: ProjectsRepository,
  ) {}

  /** Creates a key holding `role` in each of `projects` (ids or names); the key is returned once and never stored. */
  async create(spec: {
    name: string;
    projects: readonly string[];
    role: ProjectRole;
    admin: boolean;
  }): Promise<{ id: string; key: string }> {
    const name = spec.name.trim();
    if (!/^[\p{L}\p{N}][\p{L}\p{N} ._-]{0,99}$/u.test(name)) {
      throw ServiceError.invalid({
        name: 'must be 1–100 letters, digits, spaces, dots, dashes or underscores, starting with a letter or digit',
      });
    }
    if (!spec.admin && spec.projects.length === 0) {
      throw ServiceError.invalid({ projects: 'name at least one project, or make the key an org-wide admin' });
    }
    const key = newApiKey();
    const id = randomUUID();
    await this.db.transaction(async (manager) => {
      const ids: string[] = [];
      for (const reference of spec.projects) {
        const project = await this.projects.find(reference, manager);
        if (!project) throw ServiceError.of('not_found', `Project "${reference}" does not exist.`, { fields: { projects: reference } });
        ids.push(project.id);
      }
      try {
        await this.db.run(SQL.insert, [id, name, nameKey(name), keyDigest(key), key.slice(0, KEY_PREFIX.length + 8), spec.admin], manager);
      } catch (error) {
        if (uniqueViolation(error))
          throw ServiceError.invalid({ name: `a key named "${name}" exists; revoke it first or choose another name` });
        throw error;
      }
      if (ids.length > 0) await this.db.run(SQL.grant, [id, ids, spec.role], manager);
    });
    return { id, key };
  }

  /** The grant of the unrevoked key with this SHA-256, or null. */
  async verify(sha256: string): Promise<ApiKeyGrant | null> {
    const { rows } = await this.db.run<ApiKeyGrant>(SQL.verify, [sha256]);
    return rows[0] ?? null;
  }

  async list(): Promise<ApiKeyInfo[]> {
    const { rows } = await this.db.run<{
      id: string;
      name: string;
      prefix: string;
      admin: boolean;
      projects: Record<string, ProjectRole>;
      created_at: Date;
      revoked_at: Date | null;
    }>(SQL.list, []);
    return rows.map((r) => ({ ...r, createdAt: r.created_at, revokedAt: r.revoked_at }));
  }

  /** Revokes the key with this id or name; what it revoked, or undefined when no live key matches. */
  async revoke(reference: string): Promise<{ id: string; name: string } | undefined> {
    const { rows } = await this.db.run<{ id: string; name: string }>(SQL.revoke, [reference, nameKey(reference)]);
    return rows[0];
  }
}
