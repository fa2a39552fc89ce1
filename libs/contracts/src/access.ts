import { busError, type BusError } from './errors.js';
import { principalLabel, type Principal } from './principal.js';
import type { ProjectRole } from './projects/role.js';

/**
 * What a tool needs of its caller (issue #13), declared in each contract:
 * - `read`: any authenticated caller; what it may read is decided with the
 *   data (the projects it holds a role in);
 * - `maintain`: changes a project or an index: a maintainer (of the project
 *   the call names, checked by the service that owns it) or an admin;
 * - `admin`: org-wide changes (creating a project): admins only.
 */
export type ToolAccess = 'read' | 'maintain' | 'admin';

/** Whether `principal` may call a tool of this access at all; the owning service then checks the project or repository. */
export function mayUse(principal: Principal, access: ToolAccess): boolean {
  if (principal.admin) return true;
  if (access === 'admin') return false;
  if (access === 'maintain') return Object.values(principal.projects).includes('maintainer');
  return true;
}

/** The role `principal` holds in a project: `admin` (org-wide admins, the local user, Sextant's own services), its grant, or none. */
export function projectRole(principal: Principal, projectId: string): 'admin' | ProjectRole | undefined {
  if (principal.admin) return 'admin';
  // Own properties only: `constructor` or `__proto__` name no project, whatever a plain object inherits.
  return Object.hasOwn(principal.projects, projectId) ? principal.projects[projectId] : undefined;
}

/** The projects a non-admin principal may read (undefined: every project). */
export function readableProjects(principal: Principal): ReadonlySet<string> | undefined {
  return principal.admin ? undefined : new Set(Object.keys(principal.projects));
}

/** `forbidden` when `principal` (undefined: a request that carries none) may not call `tool` of this access; else undefined. */
export function accessRefusal(tool: string, access: ToolAccess, principal: Principal | undefined): BusError | undefined {
  if (principal && mayUse(principal, access)) return undefined;
  const who = principal ? principalLabel(principal) : 'a request without a principal';
  const needs = access === 'admin' ? 'an org-wide admin' : access === 'maintain' ? 'a maintainer of a project (or an admin)' : 'a caller';
  return busError('forbidden', `${tool} needs ${needs}; ${who} is not.`, { required: access });
}
