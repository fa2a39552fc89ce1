import { z } from 'zod';
import { Workspace } from '../common.js';
import { defineTool } from '../tool.js';
import { FilePath, answerFields, oneTarget, Precision, RepositoryRef, SymbolName } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'symbol-indexer.change-impact.v1';
export const Request = z
  .strictObject({
    files: z.array(FilePath).max(500).optional(),
    symbols: z.array(SymbolName).max(500).optional(),
    repository: RepositoryRef,
    workspace: Workspace.optional(),
  })
  .refine((r) => (r.files?.length ?? 0) + (r.symbols?.length ?? 0) > 0, { message: 'give files and/or symbols', path: ['files'] })
  .refine(...oneTarget);
export type Request = z.output<typeof Request>;
export const Response = z.object({
  ...answerFields,
  dependents: z.array(
    z.object({
      path: z.string(),
      depth: z.int(),
      precision: Precision.optional().describe(
        'Which tier shows the dependency: "precise", the file references a symbol the compiler says is defined in a file of the level before (SCIP index); "search", its imports (an extension).',
      ),
    }),
  ),
  affected_tests: z.array(z.string()),
  risk: z.object({
    level: z.enum(['low', 'medium', 'high']),
    summary: z.string(),
    dependents_count: z.int(),
  }),
  truncated: z.boolean(),
});
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'analyze_change_impact',
  title: 'Analyze change impact',
  description: 'For changed files and/or symbols: the dependents reached, the tests likely affected, and a risk summary.',
  service: 'symbol-indexer',
  subject: SUBJECT,
  input: Request,
  output: Response,
});
