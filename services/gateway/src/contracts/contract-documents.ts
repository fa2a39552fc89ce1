import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { ERROR_CATALOG, ERROR_CODES, HEALTH_SUBJECTS, renderToolCatalog, TOOLS } from '@sextant/contracts';
import type { GatewayConfig } from '../config.js';
import { GATEWAY_CONFIG } from '../tokens.js';

export interface DocumentInfo {
  uri: string;
  name: string;
  title: string;
  mimeType: 'text/markdown';
}

const ID = /^[a-z0-9][a-z0-9._-]*$/i;

/**
 * The MCP resources `contract/<id>.md` and `adr/<id>.md`. `contract/tools.md`,
 * `contract/errors.md` and `contract/subjects.md` are generated from
 * `@sextant/contracts` (so they cannot drift from the code); other contracts
 * come from `docs/contracts/`, ADRs from `docs/adr/`. Files are read once, at start.
 */
@Injectable()
export class ContractDocuments {
  private readonly documents = new Map<string, { info: DocumentInfo; text: string }>();

  constructor(@Inject(GATEWAY_CONFIG) config: GatewayConfig) {
    this.add('contract/tools.md', 'MCP tool catalog', renderTools());
    this.add('contract/errors.md', 'Error codes', renderErrors());
    this.add('contract/subjects.md', 'NATS subjects', renderSubjects());
    for (const [folder, prefix] of [
      ['contracts', 'contract'],
      ['adr', 'adr'],
    ] as const) {
      for (const file of markdownFiles(join(config.docsDir, folder))) {
        const text = readFileSync(join(config.docsDir, folder, file), 'utf8');
        this.add(`${prefix}/${file}`, titleOf(text) ?? file, text);
      }
    }
  }

  list(): DocumentInfo[] {
    return [...this.documents.values()].map((d) => d.info);
  }

  read(uri: string): { info: DocumentInfo; text: string } | undefined {
    return this.documents.get(uri);
  }

  /** `tools`, `tools.md` and `contract/tools.md` all name the same contract. */
  contract(id: string): { info: DocumentInfo; text: string } | undefined {
    const bare = id.replace(/^contract\//, '').replace(/\.md$/, '');
    return ID.test(bare) ? this.documents.get(`contract/${bare}.md`) : undefined;
  }

  contractIds(): string[] {
    return [...this.documents.keys()].filter((uri) => uri.startsWith('contract/')).map((uri) => uri.slice(9, -3));
  }

  private add(uri: string, title: string, text: string): void {
    const name = uri.slice(uri.indexOf('/') + 1);
    if (!this.documents.has(uri)) this.documents.set(uri, { info: { uri, name, title, mimeType: 'text/markdown' }, text });
  }
}

function markdownFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.md') && ID.test(f) && f.toLowerCase() !== 'readme.md')
    .sort();
}

function titleOf(markdown: string): string | undefined {
  return /^#\s+(.+)$/m.exec(markdown)?.[1]?.trim();
}

function renderTools(): string {
  return renderToolCatalog({
    title: 'MCP tool catalog',
    intro: 'Generated from `@sextant/contracts`. Inputs are JSON Schema draft-07.',
    schemas: true,
  });
}

function renderErrors(): string {
  const lines = [
    '# Error codes',
    '',
    'A failed tool call returns `isError: true` with `{ error, message, details?, metadata }`.',
    '',
    '| code | retryable | meaning |',
    '|---|---|---|',
  ];
  for (const code of ERROR_CODES)
    lines.push(`| \`${code}\` | ${ERROR_CATALOG[code].retryable ? 'yes' : 'no'} | ${ERROR_CATALOG[code].meaning} |`);
  return `${lines.join('\n')}\n`;
}

function renderSubjects(): string {
  const lines = ['# NATS subjects', '', 'Request/reply, JSON, `<service>.<verb>.v<N>`.', '', '| subject | answers |', '|---|---|'];
  for (const [service, subject] of Object.entries(HEALTH_SUBJECTS)) lines.push(`| \`${subject}\` | health of ${service} |`);
  for (const tool of TOOLS) if (tool.subject) lines.push(`| \`${tool.subject}\` | \`${tool.name}\` |`);
  return `${lines.join('\n')}\n`;
}
