import { z } from 'zod';

/**
 * Field schemas shared by several tools. Limits live here so that a limit is
 * written once and documented in every schema that uses it.
 */

// Letters, marks, numbers, punctuation, symbols and spaces; no control or format characters.
const PRINTABLE = /^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]*$/u;

/** A single-line, printable, trimmed string between `min` and `max` characters. */
export function text(min: number, max: number) {
  return (
    z
      .string()
      .trim()
      .min(min, min === 1 ? 'must not be empty' : `must be at least ${min} characters`)
      .max(max, `must be at most ${max} characters`)
      // A refinement rather than .regex(): \p{…} classes are not portable JSON Schema patterns.
      .refine((value) => PRINTABLE.test(value), 'must not contain control characters')
  );
}

/**
 * An integer between `min` and `max`. The bounds are checked before
 * integrality, so `1e308` is told the documented maximum, not JavaScript's
 * safe-integer limit.
 */
export function intIn(min: number, max: number) {
  return z
    .number({ error: 'must be a number' })
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`)
    .int('must be an integer');
}

/** Integer with bounds, optional, with its default documented in the schema. */
export function boundedInt(min: number, max: number, fallback: number) {
  return intIn(min, max).default(fallback);
}

export const IsoDateTime = z.string().describe('ISO 8601 timestamp (UTC)');

/** The optional `workspace` parameter every repository-implying tool accepts. */
export const Workspace = text(1, 4096)
  .refine(
    (path) => path.startsWith('/') && !path.split('/').some((segment) => segment === '.' || segment === '..'),
    'must be an absolute path (starting with "/") without "." or ".." segments',
  )
  .describe('Absolute path of a registered workspace; omitted means the default workspace.');

/** Name of a repository as the indexers know it (e.g. `owner/repo` or a checkout directory name). */
export const RepoName = text(1, 512).describe('Repository name, e.g. `owner/repo`.');

/** Search scope of semantic search: one repository, several, a project, or all. */
export const Scope = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('repo'), repo: RepoName }),
  z.strictObject({ type: z.literal('repos'), repos: z.array(RepoName).min(1).max(100) }),
  z.strictObject({ type: z.literal('all') }),
  z.strictObject({ type: z.literal('project'), project: text(1, 200).describe('Project id or name.') }),
]);
export type Scope = z.infer<typeof Scope>;

/** The effective scope reported back in `meta.scope`. */
export const EffectiveScope = z.object({
  type: z.enum(['repo', 'repos', 'all', 'project']),
  repos: z.array(z.string()).optional(),
  project: z.string().optional(),
});

export const ResultCompleteness = z.enum(['complete', 'partial', 'truncated']);
export const IndexingStatus = z.enum(['not_indexed', 'indexing', 'ready', 'failed']);
export type IndexingStatus = z.output<typeof IndexingStatus>;

/**
 * Present when an answer read from an index does not cover what was asked: a
 * repository of it is being indexed (auto-discovered by this very call,
 * tools.md "Workspaces", or its first job still running), was never indexed,
 * or its indexing failed. `hint` says which, and what to call.
 */
export const discoveryFields = {
  indexing_status: z
    .literal('indexing')
    .optional()
    .describe(
      '"indexing": a repository of the answer is being indexed (this call may have started it); the answer covers what is indexed so far.',
    ),
  result_completeness: ResultCompleteness.optional().describe('"partial": the answer covers only what was indexed so far.'),
  hint: z
    .string()
    .optional()
    .describe('One line on what the answer could not cover and what to call, e.g. "shop is not indexed: call index_repo".'),
};

/** Added by the gateway to every result, success or failure. */
export const Metadata = z.object({
  execution_time_ms: z.number().describe('Wall time spent in the gateway for this call.'),
  request_id: z.string(),
  trace_id: z.string().describe('OpenTelemetry trace id of this call (32 hex digits).'),
  rate_limit_remaining: z.number().optional(),
  rate_limit_reset: z.number().optional().describe('Unix time (seconds) when the upstream rate limit resets.'),
});
export type Metadata = z.infer<typeof Metadata>;

/** Upstream rate-limit figures a service may attach to its response; the gateway moves them into `metadata`. */
export const UpstreamRateLimit = z
  .object({ remaining: z.number(), reset: z.number() })
  .describe('Moved into metadata.rate_limit_remaining / rate_limit_reset by the gateway.');
