import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import type { QdrantExchange } from './fake-qdrant.js';

/**
 * Checks exchanges with the fake Qdrant against Qdrant's published schema,
 * as Qdrant's own client ships it: `generated_schema.d.ts`, generated from
 * Qdrant's OpenAPI document. Each request body and query, and each answer,
 * becomes an object literal typed as its operation's request, query and 200
 * answer; the TypeScript compiler then reports every field the schema does
 * not have, every missing required field and every wrong type. The
 * generator renders OpenAPI's bare `nullable` alternative as
 * `Record<string, unknown> | null`, which would let any object through; it
 * is read as `null`, which is what it means. Returns the errors (none: the
 * fake spoke Qdrant's wire format).
 */
export function checkQdrantExchanges(exchanges: readonly QdrantExchange[]): string[] {
  const require = createRequire(import.meta.url);
  const entry = require.resolve('@qdrant/js-client-rest');
  const client = entry.slice(0, entry.lastIndexOf('js-client-rest') + 'js-client-rest'.length);
  const schema = readFileSync(join(client, 'dist/types/openapi/generated_schema.d.ts'), 'utf8').replaceAll(
    '(Record<string, unknown> | null)',
    'null',
  );
  const dir = mkdtempSync(join(tmpdir(), 'qdrant-schema-'));
  try {
    writeFileSync(join(dir, 'schema.d.ts'), schema);
    const lines = [`import type { operations } from './schema.js';`, `type Json<O extends keyof operations> = operations[O];`];
    exchanges.forEach((e, i) => {
      const op = JSON.stringify(e.operation);
      if (e.body !== undefined) {
        lines.push(
          `// ${i}: ${e.operation} request`,
          `const request${i}: NonNullable<Json<${op}> extends { requestBody?: infer B } ? B : never> extends { content: { 'application/json': infer T } } ? T : never = ${JSON.stringify(e.body)};`,
        );
      }
      if (Object.keys(e.query).length > 0) {
        lines.push(
          `// ${i}: ${e.operation} query`,
          `const query${i}: NonNullable<Json<${op}>['parameters']['query']> = ${JSON.stringify(e.query)};`,
        );
      }
      if (e.status === 200) {
        lines.push(
          `// ${i}: ${e.operation} answer`,
          `const answer${i}: Json<${op}>['responses'][200]['content']['application/json'] = ${JSON.stringify(e.response)};`,
        );
      }
    });
    const file = join(dir, 'exchanges.ts');
    writeFileSync(file, `${lines.join('\n')}\nexport {};\n`);
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      types: [],
    });
    return ts.getPreEmitDiagnostics(program).map((d) => {
      const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
      const context = where && d.file === program.getSourceFile(file) ? ` (${lines[where.line - 1] ?? ''})` : '';
      return `${ts.flattenDiagnosticMessageText(d.messageText, '\n')}${context}`;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
