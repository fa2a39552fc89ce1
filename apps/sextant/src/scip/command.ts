import { parseArgs } from 'node:util';
import { ScipUploadEnv } from '../config.js';

export const USAGE = `Usage:
  sextant scip upload --repository REPO --commit SHA [--url URL] [--api-key KEY] FILE
Sends a SCIP index (from scip-go, scip-java, rust-analyzer, scip-clang, scip-dotnet, …) for the commit REPO is
indexed at. REPO: the registered repository's name, id or clone URL; SHA: the full commit id.
  --url URL        the Sextant server (SEXTANT_URL; default http://127.0.0.1:9100)
  --api-key KEY    an API key of a maintainer of one of REPO's projects (SEXTANT_API_KEY)
Exit status: 0 stored, 1 refused or failed (the reason on stderr), 2 a usage mistake.`;

const OPTIONS = {
  repository: { type: 'string' },
  commit: { type: 'string' },
  url: { type: 'string' },
  'api-key': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;
const KNOWN_FLAGS = '--repository REPO, --commit SHA, --url URL, --api-key KEY, --help (-h)';

export type ScipCommand =
  | { command: 'help' }
  /** A usage mistake: one line naming it (exit 2). */
  | { command: 'error'; message: string }
  | { command: 'upload'; endpoint: URL; apiKey: string | undefined; file: string };

const mistake = (message: string): ScipCommand => ({ command: 'error', message: `sextant scip: ${message} (sextant scip --help)` });

/** What `sextant scip …` asks for, from its arguments (without `scip`) and the environment; never throws. */
export function readScipCommand(argv: readonly string[], environment: NodeJS.ProcessEnv): ScipCommand {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, options: OPTIONS });
  } catch (error) {
    const flag = /'([^']+)'/.exec((error as Error).message)?.[1];
    return mistake(flag ? `unknown or incomplete flag ${flag}; known flags: ${KNOWN_FLAGS}` : (error as Error).message.split('\n')[0]);
  }
  const { values, positionals } = parsed;
  if (values.help) return { command: 'help' };
  if (positionals[0] !== 'upload') {
    return mistake(
      positionals.length === 0 ? 'no command; commands: upload' : `unknown command ${JSON.stringify(positionals[0])}; commands: upload`,
    );
  }
  if (positionals.length !== 2) return mistake('give exactly one index file');
  if (!values.repository) return mistake('--repository is required');
  if (!values.commit) return mistake('--commit is required');
  const env = ScipUploadEnv.safeParse(environment);
  if (!env.success) return mistake(`${String(env.error.issues[0]?.path[0])} ${env.error.issues[0]?.message ?? 'is not valid'}`);
  const base = values.url ?? env.data.SEXTANT_URL ?? 'http://127.0.0.1:9100';
  let endpoint: URL;
  try {
    endpoint = new URL('scip', base.endsWith('/') ? base : `${base}/`);
  } catch {
    return mistake(`--url ${JSON.stringify(base)} is not a URL`);
  }
  if (endpoint.protocol !== 'http:' && endpoint.protocol !== 'https:') return mistake('--url must start with http:// or https://');
  endpoint.searchParams.set('repository', values.repository);
  endpoint.searchParams.set('commit', values.commit);
  return { command: 'upload', endpoint, apiKey: values['api-key'] ?? env.data.SEXTANT_API_KEY, file: positionals[1] };
}
