import { z } from 'zod';
import { defineTool } from '../tool.js';
import { Freshness, SymbolDef, SymbolName, targetFields } from './common.js';

/** The bus subject of this tool: `<service>.<verb>.v<N>`; a changed contract gets a new version. */
export const SUBJECT = 'symbol-indexer.symbol-hierarchy.v1';
export const Request = z.strictObject({ name: SymbolName, ...targetFields });
export type Request = z.output<typeof Request>;
export const Response = z.object({
  freshness: Freshness,
  symbol: SymbolDef.nullable(),
  parents: z.array(SymbolDef).describe('Containers, innermost first.'),
  children: z.array(SymbolDef),
  extends: z.array(z.string()),
  implements: z.array(z.string()),
  subtypes: z.array(SymbolDef),
});
export type Response = z.output<typeof Response>;

export const tool = defineTool({
  name: 'get_symbol_hierarchy',
  title: 'Symbol hierarchy',
  description: 'Containment (parents and children) and type hierarchy (extends / implements / subtypes) of a symbol.',
  service: 'symbol-indexer',
  subject: SUBJECT,
  input: Request,
  output: Response,
});
