import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { StartupError } from './config.js';
import { dataDir, lockDataDir } from './data-dir.js';

describe('data directory', () => {
  it('defaults to a per-user location, never the working directory', () => {
    assert.equal(dataDir(undefined, { HOME: '/home/ada' }), '/home/ada/.local/share/sextant');
    assert.equal(dataDir(undefined, { HOME: '/home/ada', XDG_DATA_HOME: '/data/ada' }), '/data/ada/sextant');
    assert.equal(dataDir(undefined, { HOME: '/home/ada', XDG_DATA_HOME: 'relative' }), '/home/ada/.local/share/sextant');
    assert.equal(dataDir('/srv/sextant', { HOME: '/home/ada' }), '/srv/sextant');
    assert.equal(dataDir('rel', { HOME: '/home/ada' }), join(process.cwd(), 'rel'));
  });

  it('is held by one process; a second one is told in one line who holds it and what to do', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sextant-lock-'));
    // A live process other than this one holds the lock.
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      writeFileSync(join(dir, 'sextant.lock'), JSON.stringify({ pid: holder.pid, url: 'http://127.0.0.1:9100/mcp' }));
      assert.throws(
        () => lockDataDir(dir),
        (error: unknown) => {
          assert.ok(error instanceof StartupError);
          assert.ok(!error.message.includes('\n'));
          assert.match(
            error.message,
            new RegExp(`in use by another Sextant process \\(pid ${holder.pid}, serving MCP at http://127\\.0\\.0\\.1:9100/mcp`),
          );
          assert.match(error.message, /point your MCP client at http:\/\/127\.0\.0\.1:9100\/mcp, or set SEXTANT_DATA_DIR/);
          return true;
        },
      );
    } finally {
      holder.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('takes over a lock left by a dead process, records itself, and releases', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sextant-lock-'));
    try {
      writeFileSync(join(dir, 'sextant.lock'), '999999999');
      const lock = lockDataDir(dir);
      lock.describe({ url: 'http://127.0.0.1:1/mcp' });
      const recorded = JSON.parse(readFileSync(join(dir, 'sextant.lock'), 'utf8')) as { pid: number; url: string };
      assert.deepEqual([recorded.pid, recorded.url], [process.pid, 'http://127.0.0.1:1/mcp']);
      lock.release();
      lockDataDir(dir).release();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // Proves a restarted container comes back: its process often has the same pid and hostname as the run that left the
  // lock on the volume, and that pid is alive (it is this process), yet the lock is an earlier run's. Another host's
  // lock under this pid (another container running at once) and a lock this process took itself are still refused.
  it("takes over a lock naming this process's own pid and host that this process did not take", () => {
    const dir = mkdtempSync(join(tmpdir(), 'sextant-lock-'));
    try {
      writeFileSync(join(dir, 'sextant.lock'), JSON.stringify({ pid: process.pid, host: `not-${hostname()}` }));
      assert.throws(() => lockDataDir(dir), /in use by another Sextant process/, 'another container with the same pid');
      const earlier = {
        host: hostname(),
        pid: process.pid,
        started_at: '2026-01-01T00:00:00.000Z',
        command: '/app/services/workspace-registry/dist/main.js',
      };
      writeFileSync(join(dir, 'sextant.lock'), JSON.stringify(earlier));
      const lock = lockDataDir(dir);
      const recorded = JSON.parse(readFileSync(join(dir, 'sextant.lock'), 'utf8')) as { pid: number; started_at: string };
      assert.equal(recorded.pid, process.pid);
      assert.notEqual(recorded.started_at, earlier.started_at, "the lock is this run's now");
      assert.throws(() => lockDataDir(dir), /in use by another Sextant process/);
      assert.throws(() => lockDataDir(`${dir}/.`), /in use by another Sextant process/, 'the same directory spelled otherwise');
      lock.release();
      lockDataDir(dir).release();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
