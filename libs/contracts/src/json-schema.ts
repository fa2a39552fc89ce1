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
  return z.toJSONSchema(tool.input, { ...OPTIONS, io: 'input' }) as JsonSchema;
}

/**
 * JSON Schema (draft-07) of `structuredContent`: the tool's own fields plus
 * `metadata` on success, or the error object on failure. Both shapes are in
 * the schema because MCP clients validate `structuredContent` of error
 * results too.
 */
export function outputJsonSchema(tool: ToolContract): JsonSchema {
  // Recursive schemas (outlines) carry `definitions`; they must sit at the root for `$ref`s to resolve.
  const { definitions, ...success } = withoutDialect(z.toJSONSchema(tool.output, { ...OPTIONS, io: 'output' }) as JsonSchema);
  const properties = { ...(success.properties as JsonSchema), metadata: withoutDialect(z.toJSONSchema(Metadata, OPTIONS) as JsonSchema) };
  const required = [...((success.required as string[] | undefined) ?? []), 'metadata'];
  const failure = withoutDialect(z.toJSONSchema(ToolErrorResult, OPTIONS) as JsonSchema);
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    anyOf: [{ ...success, properties, required }, failure],
    ...(definitions ? { definitions } : {}),
  };
}
