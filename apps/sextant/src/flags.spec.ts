import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readCommandLine } from './cli.js';
import { withFlags } from './embedded.js';

describe('command-line flags of embedded mode', () => {
  it('turns --workspace and repeated --allowed-root into their variables, flags winning', () => {
    const env = withFlags({ SEXTANT_WORKSPACE: '/from/env', OTHER: 'kept' }, [
      '--stdio',
      '--workspace',
      '/a',
      '--allowed-root',
      '/r1',
      '--allowed-root=/r2',
      '--workspace=/b',
    ]);
    assert.deepEqual([env.SEXTANT_WORKSPACE, env.SEXTANT_ALLOWED_ROOTS, env.OTHER], ['/b', '/r1,/r2', 'kept']);
    assert.deepEqual(withFlags({ SEXTANT_WORKSPACE: '/from/env' }, ['--stdio']), { SEXTANT_WORKSPACE: '/from/env' });
  });
});

describe('the command line of sextant', () => {
  it('answers --help and --version, serves with known flags, and names an unknown flag with the known ones', () => {
    assert.deepEqual(readCommandLine(['--help']), { command: 'help' });
    assert.deepEqual(readCommandLine(['--stdio', '-h']), { command: 'help' });
    assert.deepEqual(readCommandLine(['-V']), { command: 'version' });
    assert.deepEqual(readCommandLine([]), { command: 'serve', stdio: false });
    assert.deepEqual(readCommandLine(['--stdio', '--workspace', '/a', '--allowed-root=/r', '--allowed-root', '/s']), {
      command: 'serve',
      stdio: true,
    });
    const unknown = readCommandLine(['--stdio', '--prot', '9']);
    assert.equal(unknown.command, 'error');
    assert.match(unknown.command === 'error' ? unknown.message : '', /^sextant: unknown flag --prot; known flags: --stdio, .*--help/);
    const positional = readCommandLine(['serve']);
    assert.match(positional.command === 'error' ? positional.message : '', /unknown command "serve"/);
    const missing = readCommandLine(['--workspace']);
    assert.match(missing.command === 'error' ? missing.message : '', /--workspace/);
  });
});
