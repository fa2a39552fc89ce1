import { Logger } from '@nestjs/common';
import { localIdentity, parseRepository, type LocatorPolicy } from '@sextant/checkouts';
import { MoveMemberships } from '@sextant/contracts';
import type { BusClient } from '@sextant/messaging';
import type { RegistryStore, Repository } from './registry.store.js';

/** How often merges whose memberships the projects service has not moved yet are sent again. */
const RETRY_MS = 30_000;

/**
 * The identity (ADR 0044) and canonical locator of a stored repository, as
 * the code computes them now. The host allowlist is not applied: a stored
 * repository whose host left GIT_ALLOWED_HOSTS keeps its identity (its
 * tools refuse it at the call).
 */
function storedIdentity(
  repository: Pick<Repository, 'kind' | 'locator'>,
  policy: LocatorPolicy,
): { identity: string; locator: string } {
  if (repository.kind === 'local') return { identity: localIdentity(repository.locator), locator: repository.locator };
  const host = /^[a-z]+:\/\/([^/]+)/i.exec(repository.locator)?.[1]?.toLowerCase();
  const locator = parseRepository(repository.locator, {
    ...policy,
    allowFileUrls: true,
    allowedHosts: [...policy.allowedHosts, ...(host ? [host] : [])],
  });
  return { identity: locator.identity, locator: locator.url };
}

/** Of repositories that are one, the one kept: indexed before not, most recently indexed, most files, then by id. */
function survivorFirst(a: Repository, b: Repository): number {
  const ready = Number(b.status === 'ready') - Number(a.status === 'ready');
  if (ready !== 0) return ready;
  const indexed = (b.lastIndexedAt?.getTime() ?? 0) - (a.lastIndexedAt?.getTime() ?? 0);
  if (indexed !== 0) return indexed;
  return b.fileCount - a.fileCount || a.id.localeCompare(b.id);
}

/**
 * Brings every stored repository to its identity as computed now (at start,
 * after a migration or a change of GIT_CASE_INSENSITIVE_HOSTS): rewrites
 * locators to their canonical form, and merges rows that now meet into one
 * (the survivor keeps its index; the others' ids go on naming it, and their
 * memberships follow). Logs each merge. Returns the merges made.
 */
export async function reconcileIdentities(
  store: RegistryStore,
  policy: LocatorPolicy,
  onRemoved: (id: string) => Promise<unknown>,
  log = new Logger('Identities'),
): Promise<Array<{ from: Repository; into: Repository }>> {
  const groups = new Map<string, Array<Repository & { canonical: string }>>();
  for (const repository of await store.all()) {
    let computed: { identity: string; locator: string };
    try {
      computed = storedIdentity(repository, policy);
    } catch (error) {
      log.warn(`repository ${repository.id} (${repository.locator}) has a locator that no longer parses: ${(error as Error).message}`);
      continue;
    }
    const group = groups.get(computed.identity) ?? [];
    group.push({ ...repository, canonical: computed.locator });
    groups.set(computed.identity, group);
  }
  const merges: Array<{ from: Repository; into: Repository }> = [];
  const changed: Array<{ id: string; identity: string; locator: string }> = [];
  for (const [identity, group] of groups) {
    const [into, ...others] = group.sort(survivorFirst);
    for (const from of others) {
      await store.merge(from, into);
      await onRemoved(from.id);
      log.warn(`merged repository ${from.id} (${from.locator}) into ${into.id} (${into.locator}): both are ${identity}`);
      merges.push({ from, into: into });
    }
    if (into.identity !== identity || into.locator !== into.canonical)
      changed.push({ id: into.id, identity, locator: into.canonical });
  }
  // Identities are unique: one that moves from row to row is first taken from every row that changes.
  await store.clearIdentities(changed.map((c) => c.id));
  for (const c of changed) await store.setIdentity(c.id, c.identity, c.locator);
  return merges;
}

/**
 * Hands the projects service the merges whose memberships it has not moved
 * yet, at start and then every RETRY_MS until it has taken them all (it may
 * start after the registry, or not run in this installation).
 */
export class MembershipMover {
  private readonly log = new Logger('Identities');
  private timer: NodeJS.Timeout | undefined;
  private warned = false;

  constructor(
    private readonly store: RegistryStore,
    private readonly bus: Pick<BusClient, 'request'>,
  ) {}

  /** Sends what is pending; true when nothing is left. */
  async send(): Promise<boolean> {
    const pending = await this.store.pendingMerges();
    for (let i = 0; i < pending.length; i += 500) {
      const moves = pending.slice(i, i + 500);
      try {
        const { moved } = await this.bus.request<MoveMemberships.Response>(MoveMemberships.SUBJECT, { moves });
        await this.store.mergesMoved(moves.map((m) => m.from));
        this.log.log(`projects moved ${moved} membership(s) of ${moves.length} merged repository id(s)`);
      } catch (error) {
        if (!this.warned) this.log.warn(`the projects service could not move memberships yet: ${(error as Error).message}`);
        this.warned = true;
        return false;
      }
    }
    return true;
  }

  start(): void {
    const round = () =>
      void this.send().then(
        (done) => {
          if (!done) this.timer = setTimeout(round, RETRY_MS).unref();
        },
        (error: Error) => this.log.warn(`could not read pending merges: ${error.message}`),
      );
    round();
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}
