import { ResolveRepositories, ResolveWorkspace, type RegisteredRepository } from '@sextant/contracts';
import type { BusClient } from './bus-client.js';

/**
 * How a service asks workspace-registry about repositories (projects for
 * members, git-cache for registered names and workspaces). Errors are the
 * registry's own (`workspace_not_registered`, `unavailable` …), as
 * `BusRequestError`s that a handler may let through to the client.
 */
export class RegistryClient {
  constructor(private readonly bus: BusClient) {}

  /** Each reference (id, name, URL or path of a registered repository) → its repository, or null. */
  async repositories(references: readonly string[]): Promise<Array<RegisteredRepository | null>> {
    const reply = await this.bus.request<ResolveRepositories.Response>(ResolveRepositories.SUBJECT, { references });
    return reply.repositories;
  }

  /** A tool's `workspace` (omitted: the default workspace), resolved with the rules of tools.md. */
  workspace(workspace: string | undefined): Promise<ResolveWorkspace.Response> {
    return this.bus.request<ResolveWorkspace.Response>(ResolveWorkspace.SUBJECT, workspace === undefined ? {} : { workspace });
  }
}
