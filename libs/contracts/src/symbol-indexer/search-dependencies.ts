import { z } from 'zod';
import { boundedInt, Workspace } from '../common.js';
import { defineTool } from '../tool.js';
import { FilePath, answerFields, oneTarget, Precision, RepositoryRef } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'symbol-indexer.search-dependencies.v1';
export const Request = z
  .strictObject({
    file_path: FilePath,
    repository: RepositoryRef,
    workspace: Workspace.optional(),
    direction: z.enum(['dependents', 'dependencies', 'both']).default('both'),
    depth: boundedInt(1, 5, 1),
    include_tests: z.boolean().default(true),
  })
  .refine(...oneTarget);
export type Request = z.output<typeof Request>;

const Edge = z.object({
  path: z.string(),
  depth: z.int(),
  via: z.string().nullable(),
  precision: Precision.optional().describe(
    'Which tier shows the edge: "precise", one file references a symbol the compiler says the other defines (SCIP index); "search", an import (an extension).',
  ),
});
export const Response = z.object({
  ...answerFields,
  file_path: z.string(),
  dependents: z.array(Edge),
  dependencies: z.array(Edge),
  cycles: z.array(z.array(z.string())).describe('Each cycle as the list of files that form it.'),
  truncated: z.boolean(),
});
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'search_dependencies',
  title: 'Search dependency graph',
  description: 'The import graph around a file: files that depend on it, files it depends on, up to `depth`, with cycles reported.',
  service: 'symbol-indexer',
  subject: SUBJECT,
  input: Request,
  output: Response,
});
