/**
 * The stages of an indexing job as a client sees them (seed 003): where each
 * one sits in the job's percentage, and the message it reports.
 */
export const STAGE_RANGES = {
  discovery: [0, 10],
  parsing: [10, 70],
  indexing: [70, 95],
  finalizing: [95, 99],
} as const;

export type StageName = keyof typeof STAGE_RANGES;

/** `share` (0..1) of a stage, as a job percentage. */
export function percentOf(stage: StageName, share: number): number {
  const [from, to] = STAGE_RANGES[stage];
  return Math.floor(from + (to - from) * Math.min(1, Math.max(0, share)));
}

export const messages = {
  discovery: (scanned: number) => `Scanning files: ${scanned} discovered`,
  parsing: (parsed: number, total: number) =>
    `Parsing files: ${parsed}/${total} (${total === 0 ? 100 : Math.floor((parsed * 100) / total)}%)`,
  indexing: (indexed: number, total: number, symbols: number) => `Indexing: ${indexed}/${total} files, ${symbols} symbols`,
  finalizing: () => 'Finalizing index...',
  completed: (files: number, symbols: number, seconds: number) => `Indexed ${files} files, ${symbols} symbols in ${seconds.toFixed(1)}s`,
  failed: (error: string) => `Error: ${error}`,
};

/**
 * Where the `index`-th of `count` configured indexing stages sits: the first
 * is Parsing (10–70 %); the others share Indexing (70–95 %) in order, so a
 * job's percentage never goes back whatever stages the installation runs.
 * A lone stage (the symbols stage parses and stores each batch) spans both:
 * see `phaseAt`.
 */
export function stageRange(index: number, count: number): { name: 'parsing' | 'indexing'; from: number; to: number } {
  if (count === 1) return { name: 'parsing', from: STAGE_RANGES.parsing[0], to: STAGE_RANGES.indexing[1] };
  if (index === 0) return { name: 'parsing', from: STAGE_RANGES.parsing[0], to: STAGE_RANGES.parsing[1] };
  const [from, to] = STAGE_RANGES.indexing;
  const width = (to - from) / (count - 1);
  return { name: 'indexing', from: Math.floor(from + width * (index - 1)), to: Math.floor(from + width * index) };
}

/**
 * The stage a client is told at `percent` of a stage's range: a range that
 * reaches into Indexing (a lone stage) reports Parsing below 70 % and
 * Indexing from there. Both messages count batches that are parsed and
 * stored, so either is true of the files it counts.
 */
export function phaseAt(range: { name: 'parsing' | 'indexing' }, percent: number): 'parsing' | 'indexing' {
  return range.name === 'parsing' && percent >= STAGE_RANGES.indexing[0] ? 'indexing' : range.name;
}
