import { z } from 'zod';
import { IsoDateTime, text } from '../common.js';

/** Limits of the projects service, part of the contract (they appear in the schemas). */
export const PROJECT_LIMITS = {
  nameMax: 100,
  descriptionMax: 2000,
  repositoryIdMax: 256,
  repositoriesPerProject: 1000,
  listDefault: 50,
  listMax: 500,
} as const;

export const ProjectName = text(1, PROJECT_LIMITS.nameMax).describe('Project name, unique case-insensitively (e.g. "frontend-repos").');

export const ProjectRef = text(1, 200).describe('Project id (UUID) or name; names match case-insensitively.');

export const Description = z
  .string()
  .max(PROJECT_LIMITS.descriptionMax, `must be at most ${PROJECT_LIMITS.descriptionMax} characters`)
  .describe('Free text describing the project.');

export const RepositoryId = text(1, PROJECT_LIMITS.repositoryIdMax).describe(
  'A registered repository: its id, name (case-insensitive) or URL, as list_repositories shows them; stored as its id. ' +
    'A repository the registry does not know is not_found.',
);

export const RepositoryIds = z
  .array(RepositoryId)
  .max(PROJECT_LIMITS.repositoriesPerProject, `at most ${PROJECT_LIMITS.repositoriesPerProject} repositories per project`)
  .transform((ids) => [...new Set(ids)])
  .describe(`Registered repositories (ids, names or URLs); duplicates are ignored; at most ${PROJECT_LIMITS.repositoriesPerProject}.`);

export const Project = z.object({
  id: z.string().describe('UUID of the project.'),
  name: z.string(),
  description: z.string().nullable(),
  repository_ids: z.array(z.string()).describe('Member repositories, sorted.'),
  repository_count: z.int(),
  created_at: IsoDateTime,
  updated_at: IsoDateTime,
});
export type Project = z.infer<typeof Project>;

export const ProjectSummary = Project.omit({ repository_ids: true });
export type ProjectSummary = z.infer<typeof ProjectSummary>;

/** Result of adding or removing one member. */
export const Membership = z.object({
  project_id: z.string(),
  project_name: z.string(),
  repository_id: z.string(),
  repository_count: z.int().describe('Members after the change.'),
});
