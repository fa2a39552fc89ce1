import { z } from 'zod';
import { ErrorCode } from './errors.js';
import { Metadata } from './common.js';
import type { ToolContract } from './tool.js';

type JsonSchema = Record<string, unknown>;

const OPTIONS = { target: 'draft-07', unrepresentable: 'any', reused: 'inline' } as const;

/** The failure object of every tool (`isError: true`). */
export const ToolErrorResult = z.object({
  error: ErrorCode,
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
  metadata: Metadata,
});
export type ToolErrorResult = z.infer<typeof ToolErrorResult>;

function withoutDialect(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

/** JSON Schema (draft-07) of what a client sends; aliases and defaults as the client sees them. */
export function inputJsonSchema(tool: ToolContract): JsonSchema {
  return withAliases(z.toJSONSchema(tool.input, { ...OPTIONS, io: 'input' }), tool.aliases);
}

/**
 * The tool's aliases (vocabulary.ts) as properties of its input schema: each
 * one the schema of its field, described as its alias. A required field with
 * aliases leaves `required` (either spelling satisfies it; a top-level anyOf
 * is refused by some model APIs) and says so in its description.
 */
function withAliases(schema: JsonSchema, aliases: Readonly<Record<string, string>>): JsonSchema {
  const properties = { ...(schema.properties as Record<string, JsonSchema> | undefined) };
  const required = (schema.required as string[] | undefined) ?? [];
  const byField = new Map<string, string[]>();
  for (const [alias, field] of Object.entries(aliases)) {
    if (properties[field]) byField.set(field, [...(byField.get(field) ?? []), alias]);
  }
  if (byField.size === 0) return schema;
  const quoted = (names: readonly string[]) => names.map((n) => `\`${n}\``).join(' or ');
  for (const [field, names] of byField) {
    const { default: _default, description, ...type } = properties[field];
    if (required.includes(field)) {
      const also = `Required: as \`${field}\` or as ${quoted(names)}.`;
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a schema's description is text; JsonSchema types its values loosely.
      properties[field] = { ...properties[field], description: description ? `${String(description)} ${also}` : also };
    }
    for (const alias of names) properties[alias] = { ...type, description: `Alias of \`${field}\`.` };
  }
  const left = required.filter((name) => !byField.has(name));
  // In the order the schema had its keys (the published snapshots read as before).
  return Object.fromEntries(
    Object.entries(schema).flatMap(([key, value]): Array<[string, unknown]> => {
      if (key === 'properties') return [[key, properties]];
      if (key === 'required') return left.length > 0 ? [[key, left]] : [];
      return [[key, value]];
    }),
  );
}

/**
 * JSON Schema (draft-07) of `structuredContent`: the tool's own fields plus
 * `metadata` on success, or the error object on failure. Both shapes are in
 * the schema because MCP clients validate `structuredContent` of error
 * results too.
 */
export function outputJsonSchema(tool: ToolContract): JsonSchema {
  // Recursive schemas (outlines) carry `definitions`; they must sit at the root for `$ref`s to resolve.
  const { definitions, ...success } = withoutDialect(z.toJSONSchema(tool.output, { ...OPTIONS, io: 'output' }));
  const properties = { ...(success.properties as JsonSchema), metadata: withoutDialect(z.toJSONSchema(Metadata, OPTIONS)) };
  const required = [...((success.required as string[] | undefined) ?? []), 'metadata'];
  const failure = withoutDialect(z.toJSONSchema(ToolErrorResult, OPTIONS));
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    anyOf: [{ ...success, properties, required }, failure],
    ...(definitions ? { definitions } : {}),
  };
}
