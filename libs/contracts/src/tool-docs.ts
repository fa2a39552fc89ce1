import { TOOLS_BY_SERVICE } from './catalog.js';
import { inputJsonSchema } from './json-schema.js';
import type { ToolContract } from './tool.js';

type JsonSchema = Record<string, unknown>;

/** One input field of a tool, as the documents list it. */
export interface ToolParameter {
  name: string;
  /** `string`, `integer`, `string[]`, `"a" | "b"`, `object` … */
  type: string;
  required: boolean;
  description: string | undefined;
  /** The value taken when the field is omitted, as JSON. */
  default: string | undefined;
}

/** A JSON Schema's type, short: `string[]`, `"lexical" | "semantic"`, `integer | null`. */
function typeOf(schema: JsonSchema): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const alternatives = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (alternatives) return [...new Set(alternatives.map(typeOf))].join(' | ');
  if (schema.type === 'array') return `${schema.items ? typeOf(schema.items as JsonSchema) : 'any'}[]`;
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  return typeof schema.type === 'string' ? schema.type : 'any';
}

/** The input fields of a tool, from its published JSON Schema (what a client sends). */
export function toolParameters(tool: ToolContract): ToolParameter[] {
  const schema = inputJsonSchema(tool);
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>).map(([name, field]) => ({
    name,
    type: typeOf(field),
    required: required.has(name),
    description: typeof field.description === 'string' ? field.description : undefined,
    default: field.default === undefined ? undefined : JSON.stringify(field.default),
  }));
}

export interface ToolCatalogOptions {
  /** A title and a paragraph before the tools. */
  title: string;
  intro: string;
  /** Per tool, its bus subject and its input's JSON Schema (the MCP resource `contract/tools.md`, for agents). */
  schemas: boolean;
}

const ACCESS: Record<ToolContract['access'], string> = {
  read: '`read` (any caller)',
  maintain: '`maintain` (a maintainer of a project, or an admin)',
  admin: '`admin` (an org-wide admin)',
};

/**
 * The tool catalog as Markdown, grouped by service: per tool its name, title,
 * description, who may call it and its parameters. The gateway serves it as
 * `contract/tools.md` (with the JSON Schemas); `npm run docs` writes it to
 * docs/tools.md.
 */
export function renderToolCatalog(options: ToolCatalogOptions): string {
  const lines = [`# ${options.title}`, '', options.intro, ''];
  for (const [service, tools] of Object.entries(TOOLS_BY_SERVICE)) {
    lines.push(`## Service \`${service}\``, '');
    for (const tool of tools) {
      lines.push(`### \`${tool.name}\` — ${tool.title}`, '', tool.description, '');
      lines.push(`Access: ${ACCESS[tool.access]}${tool.annotations.readOnlyHint ? '; read-only' : ''}.`, '');
      if (options.schemas) lines.push(`Subject: ${tool.subject ? `\`${tool.subject}\`` : 'answered by the gateway'}`, '');
      const parameters = toolParameters(tool);
      if (parameters.length === 0) lines.push('No parameters.', '');
      for (const p of parameters) {
        const facts = [
          `\`${p.type}\``,
          p.required ? 'required' : undefined,
          p.default !== undefined ? `default \`${p.default}\`` : undefined,
        ];
        lines.push(`- \`${p.name}\` (${facts.filter(Boolean).join(', ')})${p.description ? `: ${p.description}` : ''}`);
      }
      if (parameters.length > 0) lines.push('');
      if (options.schemas) lines.push('```json', JSON.stringify(inputJsonSchema(tool), null, 2), '```', '');
    }
  }
  return lines.join('\n');
}
