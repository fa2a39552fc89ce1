import { lstatSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { ServiceError } from '@sextant/work';

/**
 * A repository string accepted by the git tools, reduced to one canonical
 * clone URL. Parsing is the security boundary for git: whatever comes out of
 * here is a URL on an allowed host with plain owner/name segments, so it can
 * never be read by git as an option (`--upload-pack=…`) or as a transport
 * (`ext::`, `file::`).
 */
export interface RepositoryLocator {
  /** The URL handed to git. */
  url: string;
  /** Transport: a clone over plaintext `git://`/`http://` is never reused for an `https://` request. */
  scheme: 'https' | 'http' | 'git' | 'file';
  /** `host` or `host:port`, lower-case (`file` for file:// URLs). */
  host: string;
  /** Path segments on the host, e.g. `['octo', 'hello']`. */
  segments: string[];
  /** Short, human form for messages: `github.com/octo/hello`. */
  display: string;
  /**
   * The repository's one identity (ADR 0044), whatever the spelling: `host[:port]/owner/name` for a remote (no
   * scheme, no default port, no `.git`, owner and name lower-case on a case-insensitive host), `file:<real path of
   * the git directory>` for a local one. Registry lookups, access checks and the clone cache key on it.
   */
  identity: string;
}

export interface LocatorPolicy {
  /** `host` or `host:port` entries, lower-case. */
  allowedHosts: readonly string[];
  /** Whether `file:///abs/path` URLs are accepted (tests, benchmarks, air-gapped mirrors). */
  allowFileUrls: boolean;
  /** Hosts besides github.com whose owner and repository names are case-insensitive (GIT_CASE_INSENSITIVE_HOSTS). */
  caseInsensitiveHosts?: readonly string[];
}

/** Each scheme's port when the URL names none: `git://h:9418/x` and `git://h/x` are one repository. */
const DEFAULT_PORTS: Record<string, string> = { https: '443', http: '80', git: '9418' };

/** A path segment of an owner, group or repository: no leading dash or dot, no shell or git metacharacters. */
const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$/;
const GITHUB_SHORT = /^github:([^/]+)\/([^/]+?)(?:\.git)?$/;
const GITHUB_SSH = /^git@github\.com:([^/]+)\/([^/]+?)(?:\.git)?$/;

/** Every refusal is `invalid_input` on the `repository` field (the catalog's rule for bad repository strings). */
function refuse(message: string): never {
  throw ServiceError.invalid({ repository: message });
}

function checkSegments(segments: string[], raw: string, minimum: number): string[] {
  if (segments.length < minimum) refuse(`"${raw}" needs ${minimum > 1 ? 'an owner and a repository name' : 'a repository path'}`);
  for (const segment of segments) {
    if (!SEGMENT.test(segment) || segment.includes('..')) refuse(`"${segment}" is not a valid owner or repository name`);
  }
  return segments;
}

function github(owner: string, repo: string, raw: string): RepositoryLocator {
  const segments = checkSegments([owner, repo], raw, 2);
  return {
    url: `https://github.com/${segments.join('/')}.git`,
    scheme: 'https',
    host: 'github.com',
    segments,
    display: `github.com/${segments.join('/')}`,
    identity: `github.com/${segments.join('/')}`.toLowerCase(),
  };
}

/** Whether a string is written as a repository locator (`github:`, `git@`, `scheme://`) rather than a name or an id. */
export function looksLikeLocator(reference: string): boolean {
  return /^(github:|git@|[a-z][a-z0-9+.-]*:\/\/)/i.test(reference);
}

/** Parses and authorizes a repository string; throws `invalid_input`. */
export function parseRepository(raw: string, policy: LocatorPolicy): RepositoryLocator {
  const input = raw.trim();
  if (input.length === 0) refuse('must not be empty');
  if (/[\s\x00-\x1f\x7f]/.test(input)) refuse('must not contain whitespace or control characters');
  if (input.startsWith('-')) refuse('must not start with "-"');
  if (/^[a-z0-9+.-]*::/i.test(input)) refuse('git transport helpers ("ext::", "file::", …) are not allowed');

  const short = GITHUB_SHORT.exec(input) ?? GITHUB_SSH.exec(input);
  if (short) return allowHost(github(short[1], short[2], raw), policy);

  let url: URL;
  try {
    url = new URL(input);
  } catch {
    refuse(`"${raw}" is not one of https://host/owner/repo, git@github.com:owner/repo.git or github:owner/repo`);
  }
  if (!['https:', 'http:', 'git:', 'file:'].includes(url.protocol)) {
    refuse(`the ${url.protocol.replace(':', '')} scheme is not supported (use https, http or git)`);
  }
  if (url.username || url.password) refuse('credentials in the URL are not accepted; configure them on the server');
  if (url.search || url.hash) refuse('query strings and fragments are not accepted');
  // URL parsing would silently resolve "..": refuse it in the raw text instead.
  if (input.split(/[/\\]/).some((segment) => segment === '..' || segment === '.' || /^%2e%2e$/i.test(segment))) {
    refuse('must not contain "." or ".." path segments');
  }

  if (url.protocol === 'file:') {
    if (!policy.allowFileUrls) refuse('file:// repositories are disabled (GIT_ALLOW_FILE_URLS)');
    if (url.host !== '') refuse('file:// URLs must be absolute local paths');
    const segments = decodeURIComponentSafe(url.pathname, raw).split('/').filter(Boolean);
    if (segments.length === 0 || segments.some((s) => s === '..' || s === '.' || s.startsWith('-') || /[\x00-\x1f\x7f]/.test(s)))
      refuse(`"${raw}" is not a plain absolute path`);
    const path = `/${segments.join('/')}`;
    return { url: `file://${encodeURI(path)}`, scheme: 'file', host: 'file', segments, display: path, identity: localIdentity(path) };
  }
  const segments = checkSegments(
    url.pathname
      .replace(/\/+$/, '')
      .replace(/\.git$/, '')
      .split('/')
      .filter(Boolean)
      .map((s) => decodeURIComponentSafe(s, raw)),
    raw,
    url.host.toLowerCase() === 'github.com' ? 2 : 1,
  );
  const scheme = url.protocol.slice(0, -1) as RepositoryLocator['scheme'];
  const host = url.host.toLowerCase().replace(new RegExp(`:${DEFAULT_PORTS[scheme]}$`), '');
  const path = segments.join('/');
  const caseInsensitive = host === 'github.com' || (policy.caseInsensitiveHosts ?? []).includes(host);
  const locator: RepositoryLocator = {
    scheme,
    url: `${url.protocol}//${host}/${path}${host === 'github.com' || /\.git\/*$/.test(url.pathname) ? '.git' : ''}`,
    host,
    segments,
    display: `${url.protocol === 'https:' ? '' : url.protocol + '//'}${host}/${path}`,
    identity: `${host}/${caseInsensitive ? path.toLowerCase() : path}`,
  };
  return allowHost(locator, policy);
}

/** git's own order of trying a local repository path (`enter_repo`): `p/.git`, `p`, `p.git/.git`, `p.git`. */
const GIT_DIR_SUFFIXES = ['/.git', '', '.git/.git', '.git'];

/**
 * The identity of a repository on this machine's disk (a workspace root, a
 * `file://` URL's path): the real path of the git directory git itself would
 * open for that path (ADR 0044), so `/r/api`, `/r/api.git/`, `/r//api.git`
 * and a symlink to it meet; a path where git would find none, as written.
 */
export function localIdentity(path: string): string {
  if (!isAbsolute(path)) return `file:${path}`;
  const plain = resolve(path);
  for (const suffix of GIT_DIR_SUFFIXES) {
    const gitDir = gitDirectoryAt(plain + suffix);
    if (gitDir) return `file:${gitDir}`;
  }
  return `file:${plain}`;
}

/** The real path of the git directory at `candidate` (a directory, or a `.git` file naming one), if it is one. */
function gitDirectoryAt(candidate: string): string | undefined {
  try {
    const info = statSync(candidate);
    if (info.isFile() && lstatSync(candidate).isFile()) {
      const pointer = /^gitdir: (.+)$/m.exec(readFileSync(candidate, 'utf8').slice(0, 4_096));
      return pointer ? gitDirectoryAt(resolve(dirname(candidate), pointer[1].trim())) : undefined;
    }
    if (!info.isDirectory()) return undefined;
    // What git checks before it takes a directory for a repository (is_git_directory): HEAD, objects/ and refs/.
    if (!statSync(`${candidate}/objects`).isDirectory() || !statSync(`${candidate}/refs`).isDirectory()) return undefined;
    statSync(`${candidate}/HEAD`);
    return realpathSync(candidate);
  } catch {
    return undefined;
  }
}

function decodeURIComponentSafe(segment: string, raw: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    refuse(`"${raw}" has a malformed percent-encoding`);
  }
}

function allowHost(locator: RepositoryLocator, policy: LocatorPolicy): RepositoryLocator {
  const hostname = locator.host.replace(/:\d+$/, '');
  const withPort = hostname === locator.host ? `${hostname}:${DEFAULT_PORTS[locator.scheme]}` : locator.host;
  if (![locator.host, hostname, withPort].some((h) => policy.allowedHosts.includes(h))) {
    refuse(`host "${locator.host}" is not in GIT_ALLOWED_HOSTS`);
  }
  return locator;
}

/** Branch or tag names as git accepts them (check-ref-format), and never an option. */
export function checkRefName(ref: string): string {
  const fail = (message: string): never => {
    throw ServiceError.invalid({ ref_name: message });
  };
  if (ref.startsWith('-')) fail('must not start with "-"');
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(ref) || ref.includes('..') || ref.includes('@{') || ref.includes('//')) {
    fail(`"${ref}" is not a valid branch or tag name`);
  }
  if (ref.startsWith('/') || ref.endsWith('/') || ref.endsWith('.') || ref.endsWith('.lock') || ref === '@') {
    fail(`"${ref}" is not a valid branch or tag name`);
  }
  // git refuses a name component that starts with "." (so `.git` is never a ref).
  if (ref.split('/').some((component) => component.startsWith('.') || component.endsWith('.lock'))) {
    fail(`"${ref}" is not a valid branch or tag name (no part may start with "." or end with ".lock")`);
  }
  return ref;
}
