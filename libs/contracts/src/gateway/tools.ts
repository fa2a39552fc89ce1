/** The tools of `gateway`: one line per tool (its contract file holds everything else). */
export * as HealthCheck from './health-check.js';
export * as GetContract from './get-contract.js';
