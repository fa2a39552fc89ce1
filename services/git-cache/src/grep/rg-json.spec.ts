/**
 * The long-message reader against real ripgrep output: every message, fed in
 * small pieces through the path used for over-long lines, must give what a
 * whole-message parse gives.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findRipgrep } from './engine.js';
import { longMessage, parseMessage, type RgLine } from './rg-json.js';

function viaLongPath(message: Buffer, pieceSize: number): RgLine | undefined {
  let result: RgLine | undefined;
  // A real long message arrives with its first megabyte; 160 bytes is enough to hold the path and the start of the line.
  const first = Math.min(message.length, 160);
  const sink = longMessage(message.subarray(0, first), (line) => (result = line));
  for (let at = first; at < message.length; at += pieceSize) sink.push(message.subarray(at, at + pieceSize));
  sink.end();
  return result;
}

describe('ripgrep JSON: over-long messages read in passing', () => {
  let dir: string;
  let output: Buffer[];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sextant-rg-json-'));
    const tricky = [
      'plain needle here',
      'quotes "needle" and \\"escaped\\" needle\\',
      'backslashes \\\\\\ needle \\\\',
      'tab\tneedle ä über 😀 needle \u0001 control',
      `long ${'needle '.repeat(5_000)}end`,
      'context line',
    ].join('\n');
    writeFileSync(join(dir, 'we"ird\\name ä.txt'), `${tricky}\n`);
    writeFileSync(join(dir, 'latin1.txt'), Buffer.from([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0x20, 0xe9, 0x0a]));
    const rg = await findRipgrep();
    assert.ok(rg, 'ripgrep is installed');
    const stdout = execFileSync(rg, ['--json', '--context', '1', '--regexp', 'needle', '--', '.'], { cwd: dir });
    output = stdout
      .toString('latin1')
      .split('\n')
      .filter(Boolean)
      .map((l) => Buffer.from(l, 'latin1'));
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const pieceSize of [1, 3, 7, 4096]) {
    it(`gives the same path, line number, line start and ranges as a whole parse (pieces of ${pieceSize} bytes)`, () => {
      let lines = 0;
      for (const message of output) {
        const whole = parseMessage(message);
        if (whole.type !== 'match' && whole.type !== 'context') {
          assert.equal(viaLongPath(message, pieceSize), undefined);
          continue;
        }
        lines++;
        const streamed = viaLongPath(message, pieceSize);
        assert.ok(streamed, `read ${message.toString('utf8').slice(0, 80)}`);
        assert.equal(streamed.type, whole.type);
        assert.deepEqual(streamed.path, whole.path);
        assert.equal(streamed.lineNumber, whole.lineNumber);
        assert.deepEqual(streamed.line, whole.line.subarray(0, streamed.line.length));
        assert.ok(streamed.line.length >= Math.min(whole.line.length, 4_000));
        // Submatches past the kept window may be dropped, never those starting in the first 4,000 bytes.
        assert.deepEqual(streamed.ranges, whole.ranges.slice(0, streamed.ranges.length));
        assert.ok(streamed.ranges.length >= whole.ranges.filter(([start]) => start < 4_000).length);
      }
      assert.ok(lines >= 7, `${lines} match/context lines`);
    });
  }

  it('keeps a bounded start of a very long line and the submatches near it', () => {
    const long = output.find((m) => m.includes('long needle'))!;
    const streamed = viaLongPath(long, 1000)!;
    assert.ok(streamed.line.toString('utf8').startsWith('long needle needle'));
    assert.ok(streamed.line.length <= 64 * 1024);
    assert.deepEqual(streamed.ranges[0], [5, 11]);
  });

  it('answers undefined for what it does not understand', () => {
    assert.equal(viaLongPath(Buffer.from('{"type":"match","data":{"weird":true}}'), 4), undefined);
    assert.equal(viaLongPath(Buffer.from('{"type":"match","data":{"path":{"text":"a"},"lines":{"text":"x'), 4), undefined);
  });
});
