import { z } from 'zod';
import { discoveryFields, RepoName, Workspace, text } from '../common.js';

/** `maxTokensMin`: what every get_code_context answer carries (the symbol and its freshness) takes ~110–135 tokens. */
export const SYMBOL_LIMITS = { limitDefault: 20, limitMax: 200, maxTokensMin: 200, maxTokensDefault: 4000, maxTokensMax: 32000 } as const;

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

/** Tools that may answer over several repositories: one of `repo`, `repos`, `project` or `workspace` (none: the default workspace). */
export const scopeFields = {
  ...targetFields,
  repos: z.array(RepoName).min(1).max(100).optional().describe('Several registered repositories (ids or names), instead of `repo`.'),
  project: text(1, 200).optional().describe('A project (id or name): its member repositories, instead of `repo`.'),
};

/** At most one way of naming the repositories (for `.refine` on a request with `scopeFields`). */
export const oneScope: [(r: { repo?: unknown; repos?: unknown; project?: unknown; workspace?: unknown }) => boolean, RefineParams] = [
  (r) => [r.repo, r.repos, r.project, r.workspace].filter((v) => v !== undefined).length <= 1,
  { message: 'give at most one of repo, repos, project and workspace', path: ['repo'] },
];

export const SymbolName = text(1, 512).describe('Symbol name, optionally qualified (e.g. "UserService.create").');

/** Which tier an answer comes from (ADR 0053): a compiler's index (SCIP) of the file as it is now, or tree-sitter's names. */
export const Precision = z
  .enum(['precise', 'search'])
  .describe(
    '"precise": from a compiler-grade (SCIP) index of the file as it is now; "search": from the tree-sitter index (names and scopes, no types) (an extension).',
  );

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
  precision: Precision.optional(),
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
  precision: Precision.optional(),
});
export type Reference = z.infer<typeof Reference>;

export const RepositoryRef = RepoName.optional().describe('Repository id or name; default: the default workspace.');

/** `repository` or `workspace`, not both. */
export const oneTarget: [(r: { repository?: unknown; workspace?: unknown }) => boolean, RefineParams] = [
  (r) => r.repository === undefined || r.workspace === undefined,
  { message: 'give repository or workspace, not both', path: ['repository'] },
];

type RefineParams = { message: string; path: string[] };

export const FilePath = text(1, 4096).describe('Path relative to the repository root.');

/** Which commit an answer reflects, per repository it covers. */
export const Freshness = z
  .array(
    z.object({
      repo: z.string(),
      commit: z.string().nullable(),
      behind_head: z.boolean().nullable(),
      dirty: z.literal(true).optional().describe('A watched workspace edited since its index was made (it syncs itself in seconds).'),
      changed_paths: z.array(z.string()).optional().describe('With dirty: the paths edited (at most 20).'),
      precise_commit: z
        .string()
        .nullable()
        .optional()
        .describe(
          'The commit of the precise (SCIP) tier, when the answer consulted one for this repository (null: an index of no known commit): items labelled "precise" come from it, those labelled "search" from the tree-sitter index at `commit` (an extension).',
        ),
    }),
  )
  .describe('Per repository of the answer: the commit its index reflects, and whether its branch has moved past it (null: unknown).');
export type Freshness = z.infer<typeof Freshness>;

/** What every symbol answer carries: its freshness, and the marks of a workspace this call auto-discovered. */
export const answerFields = { freshness: Freshness, ...discoveryFields };
