/**
 * A small workspace of code, docs and config that the search suites index
 * (search.test: Postgres and the local store; qdrant.test: Qdrant), and the
 * steps they share: make it a git repository, commit, index it over MCP.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { git, writeTree } from '@sextant/testing';

export const SHOP: Record<string, string> = {
  'src/webhooks/retry.ts': [
    "import { send } from './send';",
    '',
    '/** Delivers webhooks again after a failure, with exponential backoff. */',
    'export async function retryFailedWebhooks(queue: string[], attempts = 5) {',
    '  for (const hook of queue) {',
    '    for (let attempt = 0; attempt < attempts; attempt++) {',
    '      if (await send(hook)) break;',
    '      await new Promise((r) => setTimeout(r, 2 ** attempt * 100));',
    '    }',
    '  }',
    '}',
  ].join('\n'),
  'src/webhooks/send.ts':
    'export async function send(url: string): Promise<boolean> {\n  const res = await fetch(url, { method: "POST" });\n  return res.ok;\n}\n',
  'src/billing/invoice.ts': [
    'export class InvoiceService {',
    '  total(lines: Array<{ price: number; quantity: number }>) {',
    '    return lines.reduce((sum, l) => sum + l.price * l.quantity, 0);',
    '  }',
    '  taxFor(amount: number, rate: number) {',
    '    return Math.round(amount * rate * 100) / 100;',
    '  }',
    '}',
  ].join('\n'),
  'lib/config.py': [
    'import yaml',
    '',
    'def parse_config(path):',
    '    """Reads the YAML settings file."""',
    '    with open(path) as f:',
    '        return yaml.safe_load(f)',
  ].join('\n'),
  'docs/guide.md': [
    '# Shop guide',
    '',
    '## Retrying webhooks',
    '',
    'Failed deliveries are retried five times.',
    '',
    '## Invoices',
    '',
    'Totals include tax.',
  ].join('\n'),
  'config/app.yaml': 'database:\n  host: localhost\n  port: 5432\nqueue:\n  name: webhooks\n',
  'src/big.ts': [
    'export function bigComputation(input: number) {',
    ...Array.from({ length: 120 }, (_, i) => `  const step${i} = input * ${i} + ${i}; // stage ${i} of the pipeline`),
    '  return input;',
    '}',
  ].join('\n'),
};

export function commitAll(dir: string): string {
  git(dir, 'add', '-A');
  git(dir, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'change');
  return git(dir, 'rev-parse', 'HEAD').trim();
}

export function makeRepository(parent: string, name: string, files: Record<string, string>): string {
  const dir = join(parent, name);
  writeTree(dir, files);
  git(dir, 'init', '-q', '--initial-branch=main');
  commitAll(dir);
  return dir;
}

export async function indexed(client: Client, name: string, args: Record<string, unknown>): Promise<void> {
  const job = await client.callTool({ name, arguments: args }, undefined, { onprogress: () => undefined });
  assert.equal((job.structuredContent as { status: string }).status, 'completed', JSON.stringify(job.structuredContent));
}
