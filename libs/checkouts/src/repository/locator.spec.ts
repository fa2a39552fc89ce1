import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkRefName, parseRepository } from './locator.js';

const policy = { allowedHosts: ['github.com', 'git.example.com:8443'], allowFileUrls: false };

function refusal(fn: () => unknown): { code: string; message: string; details?: { fields?: Record<string, string> } } {
  try {
    fn();
  } catch (error) {
    const busError = (error as { busError?: { code: string; message: string } }).busError;
    assert.ok(busError, `expected a ServiceError, got ${String(error)}`);
    return busError;
  }
  assert.fail('expected a refusal');
}

describe('repository locator', () => {
  it('accepts the GitHub forms and normalizes them to one clone URL', () => {
    for (const raw of [
      'https://github.com/octo/hello',
      'https://github.com/octo/hello.git',
      'git@github.com:octo/hello.git',
      'github:octo/hello',
      'https://GitHub.com/octo/hello/',
    ]) {
      const locator = parseRepository(raw, policy);
      assert.equal(locator.url, 'https://github.com/octo/hello.git', raw);
      assert.deepEqual(locator.segments, ['octo', 'hello']);
    }
  });

  it('accepts allowed non-GitHub hosts with ports and nested groups', () => {
    const locator = parseRepository('https://git.example.com:8443/group/sub/repo.git', policy);
    assert.equal(locator.url, 'https://git.example.com:8443/group/sub/repo.git');
    assert.equal(locator.host, 'git.example.com:8443');
  });

  const refused: Array<[string, RegExp]> = [
    ['', /empty/],
    ['octo/hello', /not one of/],
    ['ext::sh -c touch% /tmp/pwned', /whitespace|transport/],
    ['ext::sh', /transport helpers/],
    ['file::/etc', /transport helpers/],
    ['--upload-pack=touch /tmp/pwned', /whitespace|"-"/],
    ['-c core.sshCommand=touch', /whitespace|"-"/],
    ['--upload-pack=x', /"-"/],
    ['https://github.com/-x/hello', /not a valid owner/],
    ['https://github.com/octo/--upload-pack=x', /not a valid owner/],
    ['https://github.com/octo/..', /path segments/],
    ['https://github.com/octo', /needs an owner/],
    ['https://evil.example.org/octo/hello', /GIT_ALLOWED_HOSTS/],
    ['https://git.example.com/octo/hello', /GIT_ALLOWED_HOSTS/],
    ['ssh://git@github.com/octo/hello', /scheme is not supported/],
    ['https://user:secret@github.com/octo/hello', /credentials/],
    ['https://github.com/octo/hello?x=1', /query strings/],
    ['file:///tmp/repo', /GIT_ALLOW_FILE_URLS/],
    ['github:octo/../hello', /scheme is not supported|not a valid|needs/],
    ['https://git.example.com:8443/group/../../etc', /path segments/],
    ['github:octo/hel;lo', /not a valid owner/],
    ['https://github.com/octo/hel%0alo', /not a valid owner/],
  ];
  for (const [raw, message] of refused) {
    it(`refuses ${JSON.stringify(raw)} with invalid_input`, () => {
      const error = refusal(() => parseRepository(raw, policy));
      assert.equal(error.code, 'invalid_input');
      assert.match(error.message, message);
      assert.ok(error.details?.fields?.repository, 'names the repository field');
    });
  }

  it('accepts file:// only when enabled, and only plain absolute paths', () => {
    const enabled = { ...policy, allowFileUrls: true };
    assert.equal(parseRepository('file:///srv/git/repo.git', enabled).url, 'file:///srv/git/repo.git');
    assert.equal(refusal(() => parseRepository('file:///srv/../etc', enabled)).code, 'invalid_input');
    assert.equal(refusal(() => parseRepository('file://host/srv/repo', enabled)).code, 'invalid_input');
  });

  it('refuses ref names that git would read as options or that are not valid refs', () => {
    for (const ref of ['-b', '--upload-pack=touch', 'a..b', 'a b', 'a~1', 'x:y', 'ref^', 'trailing/', '/leading', 'x.lock', 'a@{1}']) {
      const error = refusal(() => checkRefName(ref));
      assert.equal(error.code, 'invalid_input', ref);
      assert.ok(error.details?.fields?.ref_name);
    }
    for (const ref of ['main', 'feature/x', 'v1.0.0', 'release-2024_1', 'FETCH_HEAD']) assert.equal(checkRefName(ref), ref);
  });

  it('refuses ref names with a part that starts with "." as git does, .git included', () => {
    for (const ref of ['.git', 'feature/.hidden', '.Git', 'a/b.lock/c']) {
      assert.equal(refusal(() => checkRefName(ref)).code, 'invalid_input', ref);
    }
  });

  it('records the transport, so that clones over different schemes are told apart', () => {
    const schemes = { ...policy, allowedHosts: [...policy.allowedHosts, 'git.example.com'] };
    assert.equal(parseRepository('github:octo/hello', schemes).scheme, 'https');
    assert.equal(parseRepository('https://git.example.com/r.git', schemes).scheme, 'https');
    assert.equal(parseRepository('http://git.example.com/r.git', schemes).scheme, 'http');
    const plain = parseRepository('git://git.example.com/r.git', schemes);
    assert.equal(plain.scheme, 'git');
    assert.equal(plain.display, 'git://git.example.com/r');
  });
});
