/**
 * `sextant scip upload --repository R --commit C index.scip` (`npx sextant scip upload …`): sends a SCIP index a CI
 * job made (scip-go, scip-java, rust-analyzer, …) to a Sextant server's `POST /scip` (ADR 0056). Exit codes: 0 stored;
 * 1 refused or failed (the server's error code and message on stderr); 2 a mistake on the command line or a file that
 * cannot be read.
 */
import { createReadStream, statSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { readScipCommand, USAGE } from './command.js';

async function main(): Promise<number> {
  const line = readScipCommand(process.argv.slice(2), process.env);
  if (line.command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (line.command === 'error') {
    process.stderr.write(`${line.message}\n`);
    return 2;
  }
  let size: number;
  try {
    const stat = statSync(line.file);
    if (!stat.isFile()) throw Object.assign(new Error('not a file'), { code: 'not a file' });
    size = stat.size;
  } catch (error) {
    process.stderr.write(`sextant scip: cannot read ${line.file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}\n`);
    return 2;
  }

  const { status, body } = await send(line.endpoint, line.file, size, line.apiKey);
  let answer: Record<string, unknown>;
  try {
    answer = JSON.parse(body) as Record<string, unknown>;
  } catch {
    process.stderr.write(`sextant scip: the server answered ${status} with no JSON: ${body.slice(0, 300)}\n`);
    return 1;
  }
  if (status === 200) {
    process.stdout.write(
      `stored: ${String(answer.repository)} at ${String(answer.commit)}: ${String(answer.documents)} documents, ${String(answer.occurrences)} occurrences, ${String(answer.symbols)} symbols from ${String(answer.tool)} (${String(answer.duration_ms)} ms)\n`,
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
