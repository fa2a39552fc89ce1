/** The part of madge's API (it ships no types) that tests/src/circles.test.ts uses. */
declare module 'madge' {
  interface MadgeConfig {
    fileExtensions?: string[];
    excludeRegExp?: RegExp[];
    tsConfig?: string;
  }
  interface MadgeInstance {
    /** Each circle as the files in it, relative to the base directory. */
    circular(): string[][];
    /** `skipped`: the imports it could not resolve to a file. */
    warnings(): { skipped: string[] };
  }
  export default function madge(path: string, config?: MadgeConfig): Promise<MadgeInstance>;
}
