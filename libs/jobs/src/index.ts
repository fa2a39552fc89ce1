export { jobTablesMigration } from './migration.js';
export { JobStore, workerId, type Batch, type Job, type JobMode, type JobStatus, type StageCounts } from './store.js';
export { PollLoop } from './poll-loop.js';
export { StageWorker, type BatchSource, type IndexingStage, type StageWorkerOptions } from './worker.js';
