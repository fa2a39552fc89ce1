import { z } from 'zod';
import { Workspace } from '../common.js';
import { defineTool } from '../tool.js';
import { FilePath, answerFields, oneTarget, RepositoryRef, SymbolName } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'symbol-indexer.validate-spec.v1';
export const Request = z
  .strictObject({
    files_to_create: z.array(FilePath).max(500).default([]),
    files_to_modify: z.array(FilePath).max(500).default([]),
    symbols: z.array(SymbolName).max(500).optional(),
    repository: RepositoryRef,
    workspace: Workspace.optional(),
  })
  .refine(...oneTarget);
export type Request = z.output<typeof Request>;

const Finding = z.object({ kind: z.string(), target: z.string(), message: z.string() });
export const Response = z.object({
  ...answerFields,
  valid: z.boolean(),
  errors: z.array(Finding).describe('Paths that clash or do not exist, symbols already defined.'),
  warnings: z.array(Finding).describe('Files with many dependents, names unlike their neighbours.'),
});
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'validate_implementation_spec',
  title: 'Validate an implementation plan',
  description:
    'Check a proposed change (files to create and modify, symbols to add) against the index: clashes and missing paths are errors; risky files and odd names are warnings.',
  service: 'symbol-indexer',
  subject: SUBJECT,
  input: Request,
  output: Response,
});
