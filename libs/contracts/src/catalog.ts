import * as gateway from './gateway/tools.js';
import * as gitCache from './git-cache/tools.js';
import * as projects from './projects/tools.js';
import * as symbolIndexer from './symbol-indexer/tools.js';
import * as vectorSearch from './vector-search/tools.js';
import * as workspaceRegistry from './workspace-registry/tools.js';
import type { ServiceName } from './subjects.js';
import type { ToolContract } from './tool.js';

export * from './gateway/tools.js';
export * from './git-cache/tools.js';
export * from './projects/tools.js';
export * from './symbol-indexer/tools.js';
export * from './vector-search/tools.js';
export * from './workspace-registry/tools.js';

/** The contracts of one `<service>/tools.ts` list (each module exports its `tool`), by name. */
function toolsOf(list: Record<string, { tool: ToolContract }>): readonly ToolContract[] {
  return Object.values(list).map((contract) => contract.tool);
}

/**
 * The catalog (`tools.md`), composed from each service's tool list. Adding a
 * tool is its contract file plus one line in its service's `tools.ts`; the
 * gateway, the published schemas and the documents follow from here.
 */
export const TOOLS_BY_SERVICE: Readonly<Record<ServiceName | 'gateway', readonly ToolContract[]>> = {
  projects: toolsOf(projects),
  'vector-search': toolsOf(vectorSearch),
  'git-cache': toolsOf(gitCache),
  'symbol-indexer': toolsOf(symbolIndexer),
  'workspace-registry': toolsOf(workspaceRegistry),
  gateway: toolsOf(gateway),
};

/** Every tool of the catalog, grouped by the service that owns it. */
export const TOOLS: readonly ToolContract[] = Object.values(TOOLS_BY_SERVICE).flat();

export const TOOLS_BY_NAME: ReadonlyMap<string, ToolContract> = new Map(TOOLS.map((t) => [t.name, t]));
