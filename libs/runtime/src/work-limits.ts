import { availableParallelism } from 'node:os';
import { workBudgets } from '@sextant/messaging';
import { z } from 'zod';
import { env, parseEnv } from './config.js';

/** The sizes of the process-wide work budgets (`workBudgets`, work-budget.ts in messaging). */
export const WorkLimitsEnv = z.object({
  SEXTANT_MAX_CLONES: env.int(1, 256).default(4),
  SEXTANT_MAX_GREPS: env.int(1, 256).default(8),
  SEXTANT_MAX_PARSES: env.int(1, 1024).default(availableParallelism() * 2),
});

/** Sizes the process's budgets from the environment (throws ConfigError on a bad value). */
export function applyWorkLimits(environment: NodeJS.ProcessEnv): void {
  const limits = parseEnv(WorkLimitsEnv, environment);
  workBudgets.clones.resize(limits.SEXTANT_MAX_CLONES);
  workBudgets.greps.resize(limits.SEXTANT_MAX_GREPS);
  workBudgets.parses.resize(limits.SEXTANT_MAX_PARSES);
}
