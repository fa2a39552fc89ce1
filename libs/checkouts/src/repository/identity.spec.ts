/**
 * One identity per repository (ADR 0044), property-based: every spelling of
 * a generated repository computes its identity, and different repositories
 * never meet. Local repositories are real ones (`git init`) on disk.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { git } from '@sextant/testing';
import { localIdentity, parseRepository, type LocatorPolicy } from './locator.js';

const policy: LocatorPolicy = {
  allowedHosts: ['github.com', 'git.example.com', 'mirror.example.org:8443'],
  allowFileUrls: true,
  caseInsensitiveHosts: ['git.example.com'],
};

const segmentChar = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-'.split(''));
/** An owner, group or repository name: plain characters, a dot inside (never `.git` at the end). */
const segment = fc
  .tuple(
    fc.string({ unit: segmentChar, minLength: 1, maxLength: 12 }),
    fc.option(fc.string({ unit: segmentChar, minLength: 1, maxLength: 4 })),
  )
  .map(([head, tail]) => (tail ? `${head}.${tail}` : head))
  .filter((s) => !/^[-.]/.test(s) && !s.toLowerCase().endsWith('.git'));

interface Remote {
  host: 'github.com' | 'git.example.com' | 'mirror.example.org:8443';
  segments: string[];
}

const remote: fc.Arbitrary<Remote> = fc.oneof(
  fc.record({ host: fc.constant('github.com' as const), segments: fc.array(segment, { minLength: 2, maxLength: 2 }) }),
  fc.record({
    host: fc.constantFrom('git.example.com' as const, 'mirror.example.org:8443' as const),
    segments: fc.array(segment, { minLength: 1, maxLength: 3 }),
  }),
);

/** How one spelling differs from the plain URL: each choice is one way people and tools write the same repository. */
const spellingChoices = fc.record({
  scheme: fc.constantFrom('https', 'http', 'git', 'github:', 'git@'),
  hostCase: fc.boolean(),
  defaultPort: fc.boolean(),
  dotGit: fc.boolean(),
  trailingSlashes: fc.nat(2),
  doubledSlash: fc.option(fc.nat(5)),
  percentEncoded: fc.option(fc.nat(40)),
  nameCase: fc.boolean(),
});

type Spelling = typeof spellingChoices extends fc.Arbitrary<infer T> ? T : never;

function caseInsensitive(host: string): boolean {
  return host === 'github.com' || (policy.caseInsensitiveHosts ?? []).includes(host);
}

function spell(repository: Remote, choice: Spelling): string {
  const { host, segments } = repository;
  let names = segments.map((s) => (choice.nameCase && caseInsensitive(host) ? s.toUpperCase() : s));
  if (choice.percentEncoded !== null) {
    // One character of the path written as %XX (any case of hex digits).
    const path = names.join('/');
    const at = choice.percentEncoded % path.length;
    if (path[at] !== '/') {
      const hex = path.charCodeAt(at).toString(16);
      const encoded = `${path.slice(0, at)}%${at % 2 ? hex.toUpperCase() : hex}${path.slice(at + 1)}`;
      names = encoded.split('/');
    }
  }
  if (host === 'github.com' && (choice.scheme === 'github:' || choice.scheme === 'git@') && choice.percentEncoded === null) {
    const tail = `${names.join('/')}${choice.dotGit ? '.git' : ''}`;
    return choice.scheme === 'github:' ? `github:${tail}` : `git@github.com:${names.join('/')}.git`;
  }
  const scheme = choice.scheme.endsWith(':') || choice.scheme === 'git@' ? 'https' : choice.scheme;
  const [name, port] = host.split(':') as [string, string | undefined];
  const defaults: Record<string, string> = { https: '443', http: '80', git: '9418' };
  const hostPart = `${choice.hostCase ? name.toUpperCase() : name}${port ? `:${port}` : choice.defaultPort ? `:${defaults[scheme]}` : ''}`;
  const parts = [...names];
  if (choice.doubledSlash !== null) {
    const at = choice.doubledSlash % parts.length;
    parts[at] = `/${parts[at]}`;
  }
  return `${scheme}://${hostPart}/${parts.join('/')}${choice.dotGit ? '.git' : ''}${'/'.repeat(choice.trailingSlashes)}`;
}

/** The identity as this test states it, not as the code computes it. */
function expected(repository: Remote): string {
  const path = repository.segments.join('/');
  return `${repository.host}/${caseInsensitive(repository.host) ? path.toLowerCase() : path}`;
}

describe('repository identity (property-based)', () => {
  it('every spelling of a remote repository computes its identity, and its canonical URL computes it again', () => {
    fc.assert(
      fc.property(remote, spellingChoices, (repository, choice) => {
        const raw = spell(repository, choice);
        const locator = parseRepository(raw, policy);
        assert.equal(locator.identity, expected(repository), raw);
        assert.equal(parseRepository(locator.url, policy).identity, locator.identity, `${raw} → ${locator.url}`);
      }),
      { numRuns: 2_000 },
    );
  });

  it('different remote repositories never meet', () => {
    fc.assert(
      fc.property(remote, remote, spellingChoices, spellingChoices, (a, b, spellA, spellB) => {
        fc.pre(expected(a) !== expected(b));
        assert.notEqual(parseRepository(spell(a, spellA), policy).identity, parseRepository(spell(b, spellB), policy).identity);
      }),
      { numRuns: 2_000 },
    );
  });

  it('names are case-sensitive on a host that is not configured otherwise', () => {
    const a = parseRepository('https://mirror.example.org:8443/Team/Api', policy);
    const b = parseRepository('https://mirror.example.org:8443/team/api', policy);
    assert.notEqual(a.identity, b.identity);
  });

  it('a URL that cannot be normalized is invalid_input, never another repository', () => {
    for (const raw of ['https://github.com/o/r%2', 'https://github.com/o/%2e%2e', 'file:///r/%00x', 'git://git.example.com/a/../b']) {
      assert.throws(
        () => parseRepository(raw, policy),
        (error: { busError?: { code: string } }) => error.busError?.code === 'invalid_input',
        raw,
      );
    }
  });

  describe('local repositories: the real path of the git directory git would open', () => {
    const root = mkdtempSync(join(tmpdir(), 'sextant-identity-'));
    after(() => rmSync(root, { recursive: true, force: true }));
    let made = 0;

    /** A bare repository `<name>.git` or a working tree `<name>` with its `.git`, created for real. */
    function create(name: string, bare: boolean): { path: string; spellings: string[] } {
      const dir = join(root, `${made++}`);
      mkdirSync(dir);
      const path = join(dir, bare ? `${name}.git` : name);
      if (bare) git(dir, 'init', '-q', '--bare', path);
      else git(dir, 'init', '-q', path);
      symlinkSync(path, join(dir, `link-${name}`));
      const base = join(dir, name);
      const spellings = bare
        ? [
            path,
            `${path}/`,
            `file://${path}`,
            `file://${path}/`,
            `file://${dir}//${name}.git`,
            `file://${base}`,
            base,
            join(dir, `link-${name}`),
          ]
        : [path, `${path}/`, `${path}/.git`, `file://${path}`, `file://${path}/.git`, `file://${dir}//${name}`, join(dir, `link-${name}`)];
      return { path, spellings };
    }

    it('every spelling of a bare repository or a working tree meets; two repositories stay apart', () => {
      fc.assert(
        fc.property(segment, segment, fc.boolean(), fc.boolean(), (nameA, nameB, bareA, bareB) => {
          const a = create(nameA, bareA);
          const b = create(nameB, bareB);
          const identityOf = (spelling: string) =>
            spelling.startsWith('file://') ? parseRepository(spelling, policy).identity : localIdentity(spelling);
          const idA = new Set(a.spellings.map(identityOf));
          const idB = new Set(b.spellings.map(identityOf));
          assert.equal(idA.size, 1, `${a.spellings.join(' | ')} → ${[...idA].join(' | ')}`);
          assert.equal(idB.size, 1);
          assert.notEqual([...idA][0], [...idB][0]);
        }),
        { numRuns: 40 },
      );
    });
  });
});
