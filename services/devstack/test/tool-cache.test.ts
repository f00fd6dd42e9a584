import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withDirectoryLock } from '../src/tool-cache';

const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'mtx-tool-cache-'));
afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

describe('withDirectoryLock', () => {
  it('runs one holder at a time and removes the lock after', async () => {
    const lock = path.join(directory, 'serial.lock');
    let inside = 0;
    let overlapped = false;
    const holder = () =>
      withDirectoryLock(lock, async () => {
        inside += 1;
        if (inside > 1) overlapped = true;
        await new Promise((resolve) => setTimeout(resolve, 50));
        inside -= 1;
      });
    await Promise.all([holder(), holder(), holder()]);
    expect(overlapped).toBe(false);
    expect(fs.existsSync(lock)).toBe(false);
  });

  it('takes over a lock whose holder died', async () => {
    const lock = path.join(directory, 'dead.lock');
    fs.mkdirSync(lock);
    fs.writeFileSync(path.join(lock, 'pid'), '2147483646');
    expect(await withDirectoryLock(lock, async () => 'ran', 2_000)).toBe('ran');
  });

  it('waits for a holder that has made the lock but not yet written its pid, instead of taking it', async () => {
    const lock = path.join(directory, 'fresh.lock');
    fs.mkdirSync(lock);
    await expect(withDirectoryLock(lock, async () => 'ran', 1_200)).rejects.toThrow(/held too long/);
    expect(fs.existsSync(lock)).toBe(true);
  });

  it('takes over a pidless lock left long ago by a process that died making it', async () => {
    const lock = path.join(directory, 'stale.lock');
    fs.mkdirSync(lock);
    const longAgo = new Date(Date.now() - 60_000);
    fs.utimesSync(lock, longAgo, longAgo);
    expect(await withDirectoryLock(lock, async () => 'ran', 2_000)).toBe('ran');
  });
});
