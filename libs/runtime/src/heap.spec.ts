import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { ConfigError } from './config.js';
import { boundHeapGrowth } from './heap.js';

/** A child that keeps ~100 MB live, churns batches of small objects (as rows on their way to a database), and prints its peak RSS in MB. */
function peakMb(percent: string): number {
  const script = `
    const { boundHeapGrowth } = await import(${JSON.stringify(new URL('./heap.js', import.meta.url).href)});
    boundHeapGrowth({ SEXTANT_HEAP_GROWTH_PERCENT: ${JSON.stringify(percent)} });
    const live = [];
    for (let i = 0; i < 600000; i++) live.push({ name: 'x' + i, n: i, pair: [i, i + 1] });
    for (let round = 0; round < 60; round++) {
      const batch = [];
      for (let i = 0; i < 20000; i++) batch.push({ text: 'chunk ' + i + ' '.repeat(200) + round, hex: Buffer.alloc(64).toString('hex') });
    }
    const status = (await import('node:fs')).readFileSync('/proc/self/status', 'utf8');
    console.log(Math.round(Number(/VmHWM:\\s+(\\d+)/.exec(status)[1]) / 1024), live.length);`;
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).split(' ')[0]);
}

describe('boundHeapGrowth', () => {
  it('refuses a value that is not a percentage it takes, naming the variable', () => {
    for (const bad of ['lots', '-1', '401', '12.5']) {
      assert.throws(
        () => boundHeapGrowth({ SEXTANT_HEAP_GROWTH_PERCENT: bad }),
        (error: unknown) => error instanceof ConfigError && /SEXTANT_HEAP_GROWTH_PERCENT is invalid/.test(error.message),
      );
    }
  });

  it('keeps a churning heap smaller than V8 alone does', () => {
    const own = peakMb('0');
    const bounded = peakMb('50');
    assert.ok(bounded < own * 0.75, `peak RSS ${bounded} MB bounded vs ${own} MB with V8's own growth`);
  });
});
