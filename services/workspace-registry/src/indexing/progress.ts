/**
 * Where each part of an indexing job sits in the job's percentage, and the
 * message it reports (Scanning, Finalizing, Indexed; the indexing stages name
 * themselves: ADR 0016).
 */
const STAGE_RANGES = {
  discovery: [0, 10],
  /** Every configured indexing stage (symbols, vectors, …) together. */
  stages: [10, 95],
  finalizing: [95, 99],
} as const;

export type StageName = keyof typeof STAGE_RANGES;

/** `share` (0..1) of a part of the job, as a job percentage. */
export function percentOf(stage: StageName, share: number): number {
  const [from, to] = STAGE_RANGES[stage];
  return Math.floor(from + (to - from) * Math.min(1, Math.max(0, share)));
}

/**
 * The job percentage while the `index`-th of `count` indexing stages has
 * done `done` of its `total` batches. Every stage is handed the same files,
 * so the stages' range (10–95 %) measures the work of all of them as one
 * count: batches done, summed over the stages, out of the batches of every
 * stage (`count · total`). That is the same as giving each stage an equal
 * share in order; how long a stage takes per batch depends on the
 * installation (a hashing or an ONNX embedder), so nothing better is known
 * in advance. Stages run one after another and each starts where the last
 * ended, so the percentage never goes back, however many stages run.
 */
export function stagesPercent(index: number, count: number, done: number, total: number): number {
  const share = total === 0 ? 1 : Math.min(1, done / total);
  return percentOf('stages', count === 0 ? 1 : (index + share) / count);
}

/** A stage's own counters worth a client's reading, in the order a message names them. */
const COUNTERS: ReadonlyArray<[key: string, noun: string]> = [
  ['symbols_extracted', 'symbols'],
  ['chunks_indexed', 'chunks'],
];

export const messages = {
  discovery: (scanned: number) => `Scanning files: ${scanned} discovered`,
  /**
   * An indexing stage, named: "symbols: 120/539 files, 345 symbols",
   * "vectors: 0/539 files". Counts only what this stage counted, so a later
   * stage starting at 0 says so under its own name.
   */
  stage: (stage: string, files: number, total: number, counted: Record<string, string | number> = {}) =>
    [
      `${stage}: ${files}/${total} files`,
      ...COUNTERS.filter(([key]) => counted[key] !== undefined).map(([key, noun]) => `${counted[key]} ${noun}`),
    ].join(', '),
  finalizing: () => 'Finalizing index...',
  completed: (files: number, symbols: number, seconds: number) => `Indexed ${files} files, ${symbols} symbols in ${seconds.toFixed(1)}s`,
  failed: (error: string) => `Error: ${error}`,
};
