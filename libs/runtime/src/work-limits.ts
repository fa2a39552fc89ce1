import { availableParallelism } from 'node:os';
import { workBudgets } from '@sextant/work';
import { z } from 'zod';
import { env, parseEnv } from './config.js';

/** The sizes of the process-wide work budgets (`workBudgets`, work-budget.ts in messaging). */
export const WorkLimitsEnv = z.object({
  SEXTANT_MAX_CLONES: env.int(1, 256).default(4).meta({
    description: 'git children that talk to a remote (clone, fetch, ls-remote) at once in the process; more wait',
    details:
      'calls a caller waits for go ahead of indexing work ([ADR 0028](adr/0028-work-budgets-and-caller-deadlines.md)); the same holds for `SEXTANT_MAX_GREPS` and `SEXTANT_MAX_PARSES`.',
  }),
  SEXTANT_MAX_GREPS: env.int(1, 256).default(8).describe('ripgrep / git grep children at once in the process; more wait'),
  SEXTANT_MAX_PARSES: env
    .int(1, 1024)
    .default(availableParallelism() * 2)
    .meta({
      description: 'files handed to the parse workers at once, over every parse pool of the process (two in the one-process mode)',
      default: '2 × cores',
    }),
});

/** Sizes the process's budgets from the environment (throws ConfigError on a bad value). */
export function applyWorkLimits(environment: NodeJS.ProcessEnv): void {
  const limits = parseEnv(WorkLimitsEnv, environment);
  workBudgets.clones.resize(limits.SEXTANT_MAX_CLONES);
  workBudgets.greps.resize(limits.SEXTANT_MAX_GREPS);
  workBudgets.parses.resize(limits.SEXTANT_MAX_PARSES);
}
