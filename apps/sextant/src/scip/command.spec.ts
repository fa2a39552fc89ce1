import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readScipCommand } from './command.js';

const upload = ['upload', '--repository', 'shop', '--commit', 'a'.repeat(40), 'index.scip'];

describe('sextant scip', () => {
  it('reads an upload: the endpoint with repository and commit, the key from the flag or SEXTANT_API_KEY', () => {
    const line = readScipCommand([...upload, '--url', 'https://sextant.example/base/', '--api-key', 'k1'], { SEXTANT_API_KEY: 'k2' });
    assert.equal(line.command, 'upload');
    if (line.command !== 'upload') return;
    assert.equal(line.endpoint.toString(), `https://sextant.example/base/scip?repository=shop&commit=${'a'.repeat(40)}`);
    assert.equal(line.apiKey, 'k1');
    assert.equal(line.file, 'index.scip');
    const fromEnv = readScipCommand(upload, { SEXTANT_URL: 'http://10.0.0.1:9200', SEXTANT_API_KEY: 'k2' });
    assert.equal(fromEnv.command === 'upload' && `${fromEnv.endpoint.origin} ${fromEnv.apiKey}`, 'http://10.0.0.1:9200 k2');
    const local = readScipCommand(upload, {});
    assert.equal(local.command === 'upload' && local.endpoint.origin, 'http://127.0.0.1:9100');
  });

  it('names each usage mistake in one line', () => {
    const error = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
      const line = readScipCommand(argv, env);
      return line.command === 'error' ? line.message : `no error: ${line.command}`;
    };
    assert.match(error([]), /no command; commands: upload/);
    assert.match(error(['download']), /unknown command "download"/);
    assert.match(error(upload.filter((a) => a !== 'index.scip')), /exactly one index file/);
    assert.match(error(['upload', '--commit', 'x', 'f']), /--repository is required/);
    assert.match(error(['upload', '--repository', 'r', 'f']), /--commit is required/);
    assert.match(error([...upload, '--bogus']), /unknown or incomplete flag --bogus; known flags: --repository/);
    assert.match(error([...upload, '--url', 'ftp://x']), /--url must start with http/);
    assert.match(error(upload, { SEXTANT_URL: 'nats://x' }), /SEXTANT_URL must be a URL/);
    assert.equal(readScipCommand(['--help'], {}).command, 'help');
  });
});
