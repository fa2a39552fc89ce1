import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { OutlineNode, SymbolDef } from '@sextant/contracts';
import { repoPath } from '@sextant/testing';
import { packContext, tokenCounter, type ContextParts } from './token-budget.js';

/**
 * A get_code_context answer's parts as the service gathers them, from a real
 * source file of this repository: the definition of `name` (a declaration up
 * to its closing brace at the same indentation), the file's imports, an
 * outline of its declarations (a class with its members) and related
 * definitions (the class's members).
 */
function partsOf(file: string, name: string): ContextParts {
  const lines = readFileSync(repoPath(file), 'utf8').split('\n');
  const start = lines.findIndex((l) => new RegExp(`^(export )?(abstract )?(async )?(class|function|interface) ${name}\\b`).test(l));
  assert.ok(start >= 0, `${name} in ${file}`);
  const end = lines.findIndex((l, i) => i > start && l === '}');
  const def = (line: number, symbol: string, kind: SymbolDef['kind'], container: string | null): SymbolDef => ({
    repo: 'sextant',
    path: file,
    name: symbol,
    kind,
    line: line + 1,
    endLine: line + 1,
    container,
    signature: lines[line].trim().replace(/\s*\{$/, ''),
    language: 'typescript',
  });
  const outline: OutlineNode[] = [];
  const related: SymbolDef[] = [];
  let owner: OutlineNode | undefined;
  for (const [i, line] of lines.entries()) {
    const top = /^(?:export )?(?:abstract )?(?:async )?(class|function|interface|const|type) (\w+)/.exec(line);
    const member = /^ {2}(?:(?:private|public|protected|static|readonly|async) )*(\w+)\s*[(<]/.exec(line);
    const kind = (top?.[1] === 'const' ? 'constant' : top?.[1] === 'type' ? 'type' : top?.[1]) as SymbolDef['kind'];
    if (top) {
      const node: OutlineNode = {
        name: top[2],
        kind,
        line: i + 1,
        endLine: i + 1,
        signature: def(i, top[2], kind, null).signature,
        children: [],
      };
      outline.push(node);
      owner = kind === 'class' ? node : undefined;
    } else if (member && owner && !['if', 'for', 'while', 'switch', 'return'].includes(member[1])) {
      const d = def(i, member[1], 'method', owner.name);
      owner.children.push({ name: d.name, kind: 'method', line: d.line, endLine: d.endLine, signature: d.signature, children: [] });
      related.push(d);
    }
  }
  return {
    head: {
      freshness: [{ repo: 'sextant', commit: '0b0eaef5c0ffee5c0ffee5c0ffee5c0ffee5c0ff', behind_head: false }],
      symbol: def(start, name, lines[start].includes('class ') ? 'class' : 'function', null),
    },
    body: lines.slice(start, end + 1).join('\n'),
    imports: [...new Set([...lines.join('\n').matchAll(/from '([^']+)'/g)].map((m) => m[1]))],
    outline,
    related: related.slice(0, 8),
  };
}

const CASES = [
  // Large definitions: the budget is spent on the body.
  ['services/symbol-indexer/src/symbols/tools/symbol.service.ts', 'SymbolService'],
  ['services/gateway/src/mcp/tool-dispatcher.ts', 'ToolDispatcher'],
  ['services/workspace-registry/src/indexing/coordinator.ts', 'Coordinator'],
  // Small ones: the body fits, then imports, outline and related definitions fill the budget.
  ['services/symbol-indexer/src/symbols/tools/symbol.service.ts', 'tree'],
  ['services/gateway/src/mcp/tool-dispatcher.ts', 'failure'],
] as const;

describe('get_code_context sized in real tokens (cl100k_base)', () => {
  it('keeps every answer within max_tokens (at most 10 % over) and uses most of it when there is more to give', async () => {
    const count = await tokenCounter();
    const figures: string[] = [];
    for (const budget of [100, 200, 500, 2000]) {
      for (const [file, name] of CASES) {
        const parts = partsOf(file, name);
        const packed = packContext(parts, budget, count);
        const tokens = count(JSON.stringify({ ...parts.head, ...packed }));
        // What every answer carries: freshness (a 40-digit commit: 44 tokens) and the symbol (path, signature: ~65), with
        // the sized fields empty: 118–130 tokens here.
        const fixed = count(JSON.stringify({ ...parts.head, ...packContext({ ...parts, body: '' }, 0, count) }));
        figures.push(`${name}@${budget}: ${tokens}${packed.truncated ? ' (truncated)' : ''}`);
        if (fixed > budget) {
          // Over budget before a line of code: the answer is those fields alone, and says so.
          assert.deepEqual(
            [tokens, packed.estimated_tokens, packed.definition, packed.truncated],
            [fixed, fixed, '', true],
            `${name} at ${budget}`,
          );
          continue;
        }
        assert.ok(tokens <= budget * 1.1, `${name} at max_tokens ${budget}: ${tokens} tokens`);
        assert.equal(packed.estimated_tokens, tokens, `${name} at ${budget}: estimated_tokens is the answer's count`);
        // Cut short: the budget was used, short of a line of code or one whole item.
        if (packed.truncated) assert.ok(tokens >= budget * 0.8, `${name} at ${budget}: only ${tokens} tokens used`);
      }
    }
    console.log(figures.join('; '));
  });

  it('sends the whole definition, then imports, outline and related definitions, when the budget allows', async () => {
    const count = await tokenCounter();
    const parts = partsOf('services/gateway/src/mcp/tool-dispatcher.ts', 'failure');
    const packed = packContext(parts, 32_000, count);
    assert.equal(packed.definition, parts.body);
    assert.deepEqual([packed.imports, packed.outline, packed.related], [parts.imports, parts.outline, parts.related]);
    assert.equal(packed.truncated, false);
  });

  it('cuts a definition at a line end, and a first line longer than the budget where the budget ends', async () => {
    const count = await tokenCounter();
    const parts = partsOf('services/symbol-indexer/src/symbols/tools/symbol.service.ts', 'SymbolService');
    const packed = packContext(parts, 500, count);
    assert.ok(packed.definition!.endsWith('\n') && parts.body!.startsWith(packed.definition!));
    assert.deepEqual([packed.outline, packed.imports, packed.related], [[], [], []]);
    const long = packContext({ ...parts, body: `const x = [${'1, '.repeat(500)}];` }, 150, count);
    assert.ok(long.truncated && long.definition!.length > 20 && long.estimated_tokens <= 150, `${long.estimated_tokens}`);
  });

  it('sends the head whatever the budget, saying how many tokens it takes', async () => {
    const count = await tokenCounter();
    const parts = partsOf('services/gateway/src/mcp/tool-dispatcher.ts', 'failure');
    const head = { ...parts.head, note: 'x '.repeat(200) };
    const packed = packContext({ ...parts, head }, 100, count);
    assert.equal(packed.definition, '');
    assert.equal(packed.truncated, true);
    assert.equal(packed.estimated_tokens, count(JSON.stringify({ ...head, ...packed })));
  });
});
