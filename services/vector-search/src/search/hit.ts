/** A chunk found by a search, with the score of the list it came from. */
export interface Hit {
  repositoryId: string;
  path: string;
  ordinal: number;
  startLine: number;
  endLine: number;
  language: string | null;
  symbol: string | null;
  commit: string | null;
  content: string;
  score: number;
}
