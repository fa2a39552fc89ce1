import { z } from 'zod';
import { boundedInt, intIn } from '../common.js';
import { defineTool } from '../tool.js';
import { FilePath, answerFields, oneScope, Reference, scopeFields, SymbolDef, SymbolName } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'symbol-indexer.find-references.v1';
export const Request = z
  .strictObject({
    name: SymbolName.optional(),
    path: FilePath.optional().describe(
      'With `line`: the file of the definition whose references are wanted (extension); or of a parameter or local variable, at its declaration or a use (with `column` or `name`), whose uses in that file are listed.',
    ),
    line: intIn(1, 10_000_000).optional().describe("1-based line of the definition's name."),
    column: intIn(0, 100_000).optional().describe('0-based column of the name, when one line defines several.'),
    include_definitions: z
      .boolean()
      .default(false)
      .describe(
        'Also list the definition sites (kind "definition"). Declarations of a member that override it, or that it overrides or implements (and, from the precise tier, the other implementations of that member), are listed either way, as kind "definition", in languages whose language server lists them (TypeScript, JavaScript, Java…; not Python or Go).',
      ),
    ...scopeFields,
    limit: boundedInt(1, 1000, 100),
  })
  .refine((r) => r.name !== undefined || (r.path !== undefined && r.line !== undefined), {
    message: 'give name, or path and line of the definition',
    path: ['name'],
  })
  .refine((r) => (r.path === undefined) === (r.line === undefined), { message: 'path and line go together', path: ['line'] })
  .refine(...oneScope);
export type Request = z.output<typeof Request>;
export const Response = z.object({
  ...answerFields,
  definitions: z
    .array(SymbolDef)
    .describe('The definitions whose references these are (empty: the name is defined nowhere in scope; every use is listed).'),
  references: z.array(Reference),
  total: z.int().describe('References found before `limit` cut the list.'),
  truncated: z.boolean(),
});
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'find_references',
  title: 'Find references',
  description:
    'References to a symbol across the workspace (or the given repository, repositories or project): calls, imports, type uses, each with its enclosing symbol and a one-line snippet. Name a symbol (`UserService.create`), or point at its definition with path and line.',
  service: 'symbol-indexer',
  subject: SUBJECT,
  input: Request,
  output: Response,
});
