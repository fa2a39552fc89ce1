import { ServiceError } from '@sextant/messaging';

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
}

export interface LocatorPolicy {
  /** `host` or `host:port` entries, lower-case. */
  allowedHosts: readonly string[];
  /** Whether `file:///abs/path` URLs are accepted (tests, benchmarks, air-gapped mirrors). */
  allowFileUrls: boolean;
}

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
  };
}

/** Parses and authorizes a repository string; throws `invalid_input`. */
export function parseRepository(raw: string, policy: LocatorPolicy): RepositoryLocator {
  const input = raw.trim();
  if (input.length === 0) refuse('must not be empty');
  if (/[\s\x00-\x1f\x7f]/.test(input)) refuse('must not contain whitespace or control characters');
  if (input.startsWith('-')) refuse('must not start with "-"');
  if (/^[a-z0-9+.-]*::/i.test(input)) refuse('git transport helpers ("ext::", "file::", …) are not allowed');

  const short = GITHUB_SHORT.exec(input) ?? GITHUB_SSH.exec(input);
  if (short) return allowHost(github(short[1]!, short[2]!, raw), policy);

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
    const path = decodeURIComponent(url.pathname);
    const segments = path.split('/').filter(Boolean);
    if (segments.length === 0 || segments.some((s) => s === '..' || s === '.' || s.startsWith('-')))
      refuse(`"${raw}" is not a plain absolute path`);
    return { url: `file://${url.pathname}`, scheme: 'file', host: 'file', segments, display: path };
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
  const host = url.host.toLowerCase();
  const locator: RepositoryLocator = {
    scheme: url.protocol.slice(0, -1) as RepositoryLocator['scheme'],
    url: `${url.protocol}//${host}/${segments.join('/')}${host === 'github.com' ? '.git' : url.pathname.endsWith('.git') ? '.git' : ''}`,
    host,
    segments,
    display: `${url.protocol === 'https:' ? '' : url.protocol + '//'}${host}/${segments.join('/')}`,
  };
  return allowHost(locator, policy);
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
  if (!policy.allowedHosts.includes(locator.host) && !policy.allowedHosts.includes(hostname)) {
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
