import type { ProjectRole } from './projects/role.js';

/**
 * Who is calling (issue #13): a user of the organization's identity
 * provider (a verified JWT), an API key, `local` (stdio, or HTTP with
 * authentication off on loopback: the machine's own user), or a Sextant
 * `service` acting on its own (an indexing stage's work, the gateway's
 * health checks).
 */
export interface Principal {
  kind: 'user' | 'key' | 'local' | 'service';
  /** Stable: the token's `sub`, the key's id, `local`, or the service's name. */
  id: string;
  /** For people and logs: a username or email, the key's name. */
  name: string;
  /** Org-wide admin. */
  admin: boolean;
  /** Role per project id, from stored grants. */
  projects: Readonly<Record<string, ProjectRole>>;
  /** The identity provider's groups of a user (its groups claim). */
  groups: readonly string[];
}

/** The caller of a trusted local transport. */
export const LOCAL_PRINCIPAL: Principal = Object.freeze({
  kind: 'local',
  id: 'local',
  name: 'local',
  admin: true,
  projects: {},
  groups: [],
});

/** How logs name a principal: `user:alice`, `key:ci`, `service:git-cache`, `local`. */
export function principalLabel(principal: Principal): string {
  return principal.kind === 'local' ? 'local' : `${principal.kind}:${principal.name}`;
}

/** A Sextant process acting on its own behalf (work no caller asked for). */
export function servicePrincipal(service: string): Principal {
  return Object.freeze({ kind: 'service', id: service, name: service, admin: true, projects: {}, groups: [] });
}
