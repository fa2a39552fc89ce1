import { z } from 'zod';

/** A registered repository as other services need it to reach its files. */
export const RegisteredRepository = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(['local', 'remote']),
  /** Local: the real path of the workspace root. Remote: the canonical clone URL. */
  locator: z.string(),
  /** The branch or tag it is indexed at; null: the default branch (or a local workspace's checkout). */
  ref: z.string().nullable(),
});
export type RegisteredRepository = z.output<typeof RegisteredRepository>;
