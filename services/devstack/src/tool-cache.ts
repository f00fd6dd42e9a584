import fs from 'node:fs';
import path from 'node:path';

/** A lock directory with no pid this long after it was made belongs to a process that died making it. */
const pidlessLockStaleMs = 10_000;

/**
 * Runs `work` holding the lock directory `lock`, so concurrent provisioners (several test workers, `npm start`
 * beside `npm test`) build each tool once. A lock whose holder died is taken over; a holder that has made the
 * directory but not yet written its pid is waited for, not robbed.
 */
export async function withDirectoryLock<T>(lock: string, work: () => Promise<T>, waitMaxMs = 20 * 60_000): Promise<T> {
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  const deadline = Date.now() + waitMaxMs;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch {
      const holder = lockHolder(lock);
      if (holder === 'gone' || (holder !== 'unknown' && !isAlive(holder))) {
        fs.rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`lock ${lock} held too long by pid ${holder}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  try {
    return await work();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/** The pid in the lock; `unknown` while a live maker has not written it yet, `gone` when it never will. */
function lockHolder(lock: string): number | 'unknown' | 'gone' {
  try {
    const pid = Number(fs.readFileSync(path.join(lock, 'pid'), 'utf8').trim());
    if (Number.isInteger(pid) && pid > 0) return pid;
  } catch {
    // no pid file yet, or the lock went away meanwhile
  }
  try {
    return Date.now() - fs.statSync(lock).mtimeMs > pidlessLockStaleMs ? 'gone' : 'unknown';
  } catch {
    return 'gone';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Go's module cache is read-only; a copy we patch or remove must be writable again. */
export function makeWritable(directory: string): void {
  for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    fs.chmodSync(full, entry.isDirectory() ? 0o755 : 0o644);
    if (entry.isDirectory()) makeWritable(full);
  }
  fs.chmodSync(directory, 0o755);
}
