import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
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
