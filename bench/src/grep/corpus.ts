/**
 * The bench/grep corpus: the published sources of well-known npm packages
 * (pinned versions), each committed into its own git repository under
 * `<root>/npm/<name>`, so `git daemon --base-path=<root>` serves it as
 * `git://127.0.0.1:<port>/npm/<name>` and its working tree is the checkout
 * bare ripgrep reads. Tarballs come from the npm registry (the one network
 * these machines reach); a corpus already built is reused.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { git } from '@sextant/testing';

/** 22 packages, ≈ 320 MB of JavaScript/TypeScript: a few large code bases and many mid-sized ones. */
const PACKAGES = [
  'aws-sdk@2.1692.0',
  'echarts@5.5.1',
  'pdfjs-dist@4.7.76',
  'three@0.170.0',
  'date-fns@3.6.0',
  'typescript@5.6.3',
  'typeorm@0.3.20',
  '@angular/core@18.2.8',
  'prettier@3.3.3',
  'webpack@5.95.0',
  'rxjs@7.8.1',
  'react-dom@18.3.1',
  'moment@2.30.1',
  'chart.js@4.4.4',
  'eslint@9.13.0',
  'vue@3.5.12',
  'sequelize@6.37.4',
  'mongoose@8.7.1',
  'axios@1.7.7',
  'lodash@4.17.21',
  'jquery@3.7.1',
  'graphql@16.9.0',
];

export interface CorpusRepository {
  /** Repository name, e.g. `angular-core`. */
  name: string;
  /** Path under the daemon's base path, e.g. `npm/angular-core`. */
  path: string;
  /** Working tree (the checkout bare ripgrep searches). */
  dir: string;
  /** Bytes of the checked-out files. */
  bytes: number;
}

const DONE = '.sextant-corpus-complete';

function repositoryName(spec: string): string {
  return spec
    .replace(/@[^@/]+$/, '')
    .replace(/^@/, '')
    .replace(/\//g, '-');
}

function treeBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === '.git' || entry.name === DONE) continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) total += treeBytes(full);
    else if (entry.isFile()) total += statSync(full).size;
  }
  return total;
}

/** Builds (or reuses) every repository of the corpus under `root`, reporting progress on stderr. */
export function buildCorpus(root: string): CorpusRepository[] {
  const tarballs = join(root, '.tarballs');
  mkdirSync(tarballs, { recursive: true });
  const repositories: CorpusRepository[] = [];
  for (const [i, spec] of PACKAGES.entries()) {
    const name = repositoryName(spec);
    const dir = join(root, 'npm', name);
    if (!existsSync(join(dir, '.git', DONE))) {
      process.stderr.write(`corpus ${i + 1}/${PACKAGES.length}: ${spec} (npm pack, git commit)\n`);
      rmSync(dir, { recursive: true, force: true });
      const tarball = execFileSync('npm', ['pack', spec, '--silent', '--pack-destination', tarballs], { encoding: 'utf8' }).trim();
      const unpack = join(root, '.unpack');
      rmSync(unpack, { recursive: true, force: true });
      mkdirSync(unpack, { recursive: true });
      execFileSync('tar', ['-xzf', join(tarballs, tarball.split('\n').pop()!), '-C', unpack]);
      mkdirSync(join(root, 'npm'), { recursive: true });
      renameSync(join(unpack, 'package'), dir);
      rmSync(unpack, { recursive: true, force: true });
      git(dir, 'init', '-q', '--initial-branch=main');
      git(dir, 'add', '-A', '-f');
      git(dir, 'commit', '-q', '-m', `${spec} as published on npm`);
      writeFileSync(join(dir, '.git', DONE), spec);
    }
    repositories.push({ name, path: `npm/${name}`, dir, bytes: treeBytes(dir) });
  }
  return repositories;
}
