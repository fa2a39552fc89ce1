/**
 * The command line of `sextant` (embedded mode): read before anything else
 * starts, so that `--help`, `--version` and a mistyped flag never open a
 * port, a database or a telemetry exporter. Light on purpose: node:util and
 * the package's own version only (it runs before tracing is set up).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

export const USAGE = `Usage: sextant [--stdio] [--workspace DIR] [--allowed-root DIR]...
       sextant keys create|list|revoke ...   (sextant keys --help)
       sextant scip upload --repository R --commit SHA FILE   (sextant scip --help)

Sextant: code intelligence for AI agents over MCP, the whole product in one process.

Options:
  --stdio              serve one MCP client over stdin/stdout (logs go to stderr)
                       instead of HTTP on SEXTANT_HOST:SEXTANT_PORT (127.0.0.1:9100, /mcp)
  --workspace DIR      the workspace tools use when they name none (SEXTANT_WORKSPACE;
                       default: the git repository of the working directory)
  --allowed-root DIR   a directory workspaces may be registered under (repeatable;
                       SEXTANT_ALLOWED_ROOTS)
  -h, --help           print this help and exit
  -V, --version        print the version and exit

Data lives in SEXTANT_DATA_DIR (default: a per-user directory); DATABASE_URL uses
that Postgres instead of the embedded one. Every other setting is an environment
variable (docs/configuration.md). Stop with Ctrl-C (SIGINT) or SIGTERM.`;

const OPTIONS = {
  stdio: { type: 'boolean' },
  workspace: { type: 'string' },
  'allowed-root': { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
} as const;

/** The flags `sextant` knows, as an error message names them. */
export const KNOWN_FLAGS = '--stdio, --workspace DIR, --allowed-root DIR, --help (-h), --version (-V)';

export type CommandLine =
  | { command: 'help' }
  | { command: 'version' }
  | { command: 'serve'; stdio: boolean }
  /** A mistake: `message` is one line, naming what was wrong and what is known. */
  | { command: 'error'; message: string };

/** What `argv` (without node and the script) asks for; never throws. */
export function readCommandLine(argv: readonly string[]): CommandLine {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const flag = /'([^']+)'/.exec((error as Error).message)?.[1] ?? 'flag';
      return { command: 'error', message: `sextant: unknown flag ${flag}; known flags: ${KNOWN_FLAGS} (sextant --help)` };
    }
    // A value missing (`--workspace` last) or given to a boolean (`--stdio=yes`): node's message names the flag.
    return { command: 'error', message: `sextant: ${(error as Error).message.split('\n')[0]} (sextant --help)` };
  }
  const { values, positionals } = parsed;
  if (values.help) return { command: 'help' };
  if (values.version) return { command: 'version' };
  if (positionals.length > 0) {
    return {
      command: 'error',
      message: `sextant: unknown command ${JSON.stringify(positionals[0])}; commands: keys (sextant keys --help), scip (sextant scip --help); flags: ${KNOWN_FLAGS}`,
    };
  }
  return { command: 'serve', stdio: values.stdio === true };
}

/** The product version (every Sextant package carries the same). */
export function version(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/**
 * Acts on a command line that serves nothing: prints the help (stdout, exit
 * 0), the version (stdout, exit 0) or the mistake (stderr, exit 2) and returns
 * true; returns false when the command line asks to serve.
 */
export function answerWithoutServing(line: CommandLine): boolean {
  if (line.command === 'serve') return false;
  if (line.command === 'help') process.stdout.write(`${USAGE}\n`);
  else if (line.command === 'version') process.stdout.write(`sextant ${version()}\n`);
  else {
    process.stderr.write(`${line.message}\n`);
    process.exitCode = 2;
  }
  return true;
}
