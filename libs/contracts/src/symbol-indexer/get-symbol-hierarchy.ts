import { z } from 'zod';
import { defineTool } from '../tool.js';
import { answerFields, SymbolDef, SymbolName, targetFields } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'symbol-indexer.symbol-hierarchy.v1';
export const Request = z.strictObject({ name: SymbolName, ...targetFields });
export type Request = z.output<typeof Request>;
export const Response = z.object({
  ...answerFields,
  symbol: SymbolDef.nullable(),
  parents: z.array(SymbolDef).describe('Containers, innermost first.'),
  children: z.array(SymbolDef),
  extends: z.array(z.string()),
  implements: z.array(z.string()),
  embeds: z.array(z.string()).describe('Types a Go struct or interface embeds.'),
  subtypes: z.array(SymbolDef).describe('Types that extend, implement or embed it.'),
  truncated: z.boolean().describe('True when children or subtypes were cut at 200 each.'),
});
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'get_symbol_hierarchy',
  title: 'Symbol hierarchy',
  description:
    'Containment (parents and children) and type hierarchy (extends / implements / embeds / subtypes) of a symbol. Children and subtypes: 200 each at most.',
  service: 'symbol-indexer',
  subject: SUBJECT,
  input: Request,
  output: Response,
});
