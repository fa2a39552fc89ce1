import type { z } from 'zod';
import type { ToolAccess } from './access.js';
import type { ServiceName } from './subjects.js';
import { acceptAliases, aliasesOf, inputShape } from './vocabulary.js';

/** MCP tool annotations (hints to clients; they do not change behaviour). */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/**
 * One tool, as data: everything the gateway needs to list it and forward a
 * call. `subject` is null for tools the gateway answers itself.
 * `input` parses what a client sends (aliases and defaults applied); its output
 * is exactly what the owning service receives. `output` is what the service
 * returns, before the gateway adds `metadata`.
 */
export interface ToolContract<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly service: ServiceName | 'gateway';
  readonly subject: string | null;
  readonly input: I;
  readonly output: O;
  readonly annotations: ToolAnnotations;
  /** What the caller needs (access.ts): checked by the owning service before the handler, and by `tools/list`. */
  readonly access: ToolAccess;
  /**
   * The tool starts an indexing job whose id is this field of its output: a
   * client that asks for progress (`_meta.progressToken`) gets
   * `notifications/progress` until the job ends, then its final status.
   */
  readonly startsJob?: { idField: string };
  /**
   * The input field naming the repository a call is about: when the owning
   * service runs as several shards (SEXTANT_SHARDS), the call goes to the
   * shard of that repository (shards.ts); without the field, to any shard.
   */
  readonly shardBy?: string;
  /**
   * The other spellings `input` accepts, alias → the field it stands for
   * (vocabulary.ts): every spelling of a concept the tool takes. Published
   * with the input schema; the service sees only the field.
   */
  readonly aliases: Readonly<Record<string, string>>;
}

const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/**
 * Read-only tools any caller may use are the common case; pass
 * `annotations` and `access` to say otherwise. A tool that changes state
 * must say who may call it.
 */
export function defineTool<I extends z.ZodType, O extends z.ZodType>(
  tool: Omit<ToolContract<I, O>, 'annotations' | 'access' | 'aliases'> & { annotations?: Partial<ToolAnnotations>; access?: ToolAccess },
): ToolContract<I, O> {
  const annotations = { ...READ_ONLY, ...tool.annotations };
  if (!annotations.readOnlyHint && !tool.access) throw new Error(`${tool.name} changes state: its contract must name its access`);
  // Every tool speaks the one vocabulary: each field also answers to the other spellings of its concept.
  const aliases = aliasesOf(tool.name, Object.keys(inputShape(tool.input) ?? {}));
  return { ...tool, input: acceptAliases(tool.input, aliases), aliases, annotations, access: tool.access ?? 'read' };
}

/**
 * A request between services that is not a tool (no client sees it): its
 * subject and schemas, validated by the handler as a tool's are.
 */
export interface InternalContract<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly subject: string;
  readonly input: I;
  readonly output: O;
}

export function defineInternal<I extends z.ZodType, O extends z.ZodType>(contract: InternalContract<I, O>): InternalContract<I, O> {
  return contract;
}
