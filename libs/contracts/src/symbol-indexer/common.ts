import { z } from 'zod';
import { RepoName, Workspace, text } from '../common.js';

export const SYMBOL_LIMITS = { limitDefault: 20, limitMax: 200, maxTokensDefault: 4000, maxTokensMax: 32000 } as const;

export const SymbolKind = z.enum([
  'function',
  'method',
  'class',
  'interface',
  'type',
  'enum',
  'variable',
  'constant',
  'module',
  'field',
  'property',
  'struct',
  'trait',
  'other',
]);

/** Where a repository or workspace is implied. */
export const targetFields = {
  workspace: Workspace.optional(),
  repo: RepoName.optional(),
};

export const SymbolName = text(1, 512).describe('Symbol name, optionally qualified (e.g. "UserService.create").');

export const SymbolDef = z.object({
  repo: z.string(),
  path: z.string(),
  name: z.string(),
  kind: SymbolKind,
  line: z.int(),
  endLine: z.int(),
  container: z.string().nullable(),
  signature: z.string().nullable(),
  language: z.string().optional(),
});
export type SymbolDef = z.infer<typeof SymbolDef>;

export interface OutlineNode {
  name: string;
  kind: z.infer<typeof SymbolKind>;
  line: number;
  endLine: number;
  signature: string | null;
  children: OutlineNode[];
}
export const OutlineNode: z.ZodType<OutlineNode> = z.lazy(() =>
  z.object({
    name: z.string(),
    kind: SymbolKind,
    line: z.int(),
    endLine: z.int(),
    signature: z.string().nullable(),
    children: z.array(OutlineNode),
  }),
);

export const Reference = z.object({
  repo: z.string(),
  path: z.string(),
  line: z.int(),
  column: z.int(),
  snippet: z.string().describe('The line, trimmed (from the checkout as it is now).'),
  kind: z.enum(['call', 'import', 'type', 'read', 'write', 'definition']),
  enclosing: z.string().nullable().describe('The innermost definition around it (`Container.name`), null at the top level.'),
});
export type Reference = z.infer<typeof Reference>;

export const RepositoryRef = RepoName.optional().describe('Repository id or name; default: the default workspace.');

export const FilePath = text(1, 4096).describe('Path relative to the repository root.');

/** Which commit an answer reflects, per repository it covers. */
export const Freshness = z
  .array(z.object({ repo: z.string(), commit: z.string().nullable(), behind_head: z.boolean().nullable() }))
  .describe('Per repository of the answer: the commit its index reflects, and whether its branch has moved past it (null: unknown).');
export type Freshness = z.infer<typeof Freshness>;
