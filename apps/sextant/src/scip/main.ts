/**
 * `sextant scip upload --repository R --commit C index.scip` (`npx sextant scip upload …`): sends a SCIP index a CI
 * job made (scip-go, scip-java, rust-analyzer, …) to a Sextant server's `POST /scip` (ADR 0056). Exit codes: 0 stored;
 * 1 refused or failed (the server's error code and message on stderr); 2 a mistake on the command line or a file that
 * cannot be read.
 */
import { createReadStream, statSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { parseArgs } from 'node:util';
import { ScipUploadEnv } from '../config.js';

const USAGE = `Usage:
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

function usageError(message: string): never {
  process.stderr.write(`sextant scip: ${message} (sextant scip upload --help)\n`);
  process.exit(2);
}

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: process.argv.slice(2), allowPositionals: true, options: OPTIONS });
  } catch (error) {
    const flag = /'([^']+)'/.exec((error as Error).message)?.[1];
    usageError(flag ? `unknown or incomplete flag ${flag}; known flags: ${KNOWN_FLAGS}` : (error as Error).message.split('\n')[0]!);
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    process.stdout.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  if (positionals[0] !== 'upload') usageError(`unknown command ${JSON.stringify(positionals[0])}; commands: upload`);
  if (positionals.length !== 2) usageError('give exactly one index file');
  if (!values.repository) usageError('--repository is required');
  if (!values.commit) usageError('--commit is required');
  const env = ScipUploadEnv.safeParse(process.env);
  if (!env.success) usageError(`SEXTANT_URL ${env.error.issues[0]?.message ?? 'is not valid'}`);
  const base = values.url ?? env.data.SEXTANT_URL ?? 'http://127.0.0.1:9100';
  const apiKey = values['api-key'] ?? env.data.SEXTANT_API_KEY;
  const file = positionals[1]!;
  let size: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) usageError(`${file} is not a file`);
    size = stat.size;
  } catch (error) {
    usageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let url: URL;
  try {
    url = new URL('scip', base.endsWith('/') ? base : `${base}/`);
  } catch {
    usageError(`--url ${JSON.stringify(base)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') usageError(`--url must be http:// or https://`);
  url.searchParams.set('repository', values.repository);
  url.searchParams.set('commit', values.commit);

  const { status, body } = await send(url, file, size, apiKey);
  let answer: Record<string, unknown>;
  try {
    answer = JSON.parse(body) as Record<string, unknown>;
  } catch {
    process.stderr.write(`sextant scip: the server answered ${status} with no JSON: ${body.slice(0, 300)}\n`);
    return 1;
  }
  if (status === 200) {
    process.stdout.write(
      `stored: ${answer.repository} at ${answer.commit}: ${answer.documents} documents, ${answer.occurrences} occurrences, ${answer.symbols} symbols from ${answer.tool} (${answer.duration_ms} ms)\n`,
    );
    return 0;
  }
  // The catalog's error shape ({error, message}); the gateway's authentication answers JSON-RPC ({error: {message}}).
  const error = answer.error;
  const code = typeof error === 'string' ? error : `http_${status}`;
  const message =
    typeof answer.message === 'string'
      ? answer.message
      : typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string'
        ? (error as { message: string }).message
        : body.slice(0, 300);
  process.stderr.write(`sextant scip: refused (${code}): ${message}\n`);
  return 1;
}

function send(url: URL, file: string, size: number, apiKey: string | undefined): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/octet-stream',
        'content-length': String(size),
        ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
      },
    });
    request.on('response', (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('error', reject);
    const stream = createReadStream(file);
    stream.on('error', reject);
    // The server may answer (a refusal) before the whole body is sent, and close: the answer is what counts.
    request.on('close', () => stream.destroy());
    stream.pipe(request);
  });
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    process.stderr.write(`sextant scip: the upload failed: ${code ?? (error as Error).message}\n`);
    process.exitCode = 1;
  },
);
