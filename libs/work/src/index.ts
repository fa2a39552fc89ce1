export { ServiceError } from './errors.js';
export { callerGone, callerSignal, currentLane, currentPrincipal, inRequestScope, withPrincipal, type Lane } from './request-scope.js';
export { WorkBudget, workBudgets } from './work-budget.js';
