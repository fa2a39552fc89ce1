/**
 * Language of a file by its name: one table, the place to add a language
 * for discovery (the parsers of the symbol indexer key on the same names).
 */
const BY_EXTENSION = new Map<string, string>(
  Object.entries({
    ts: 'typescript',
    mts: 'typescript',
    cts: 'typescript',
    tsx: 'tsx',
    js: 'javascript',
    mjs: 'javascript',
    cjs: 'javascript',
    jsx: 'javascript',
    py: 'python',
    pyi: 'python',
    go: 'go',
    java: 'java',
    rs: 'rust',
    cs: 'c_sharp',
    rb: 'ruby',
    c: 'c',
    h: 'c',
    cc: 'cpp',
    cpp: 'cpp',
    cxx: 'cpp',
    hpp: 'cpp',
    hh: 'cpp',
    hxx: 'cpp',
    php: 'php',
    kt: 'kotlin',
    swift: 'swift',
    scala: 'scala',
    sh: 'shell',
    bash: 'shell',
    sql: 'sql',
    md: 'markdown',
    json: 'json',
    yaml: 'yaml',
    yml: 'yaml',
    toml: 'toml',
    html: 'html',
    css: 'css',
    scss: 'scss',
    vue: 'vue',
    svelte: 'svelte',
    proto: 'protobuf',
  }),
);

const BY_NAME = new Map<string, string>(
  Object.entries({
    Dockerfile: 'dockerfile',
    Makefile: 'make',
    Gemfile: 'ruby',
    Rakefile: 'ruby',
  }),
);

/** `typescript`, `python`, … or null when the name says nothing. */
export function languageOf(path: string): string | null {
  const name = path.slice(path.lastIndexOf('/') + 1);
  // Maps: file names are the repository's, and a plain object would take `constructor` or `x.toString` for a language.
  const byName = BY_NAME.get(name);
  if (byName) return byName;
  const dot = name.lastIndexOf('.');
  return dot > 0 ? (BY_EXTENSION.get(name.slice(dot + 1).toLowerCase()) ?? null) : null;
}
