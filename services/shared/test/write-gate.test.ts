import { describe, expect, it } from 'vitest';
import { WriteGate } from '../src/store/write-gate';

function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((onResolve, onReject) => {
    resolve = onResolve;
    reject = onReject;
  });
  return { promise, resolve, reject };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('WriteGate', () => {
  it('runs at most `limit` tasks at once and starts the waiting ones in arrival order', async () => {
    const gate = new WriteGate(2);
    const releases = Array.from({ length: 5 }, () => deferred());
    const started: number[] = [];
    let running = 0;
    let mostRunning = 0;
    const runs = releases.map((release, index) =>
      gate.run(async () => {
        started.push(index);
        running += 1;
        mostRunning = Math.max(mostRunning, running);
        await release.promise;
        running -= 1;
        return index;
      }),
    );
    await settle();
    expect(started).toEqual([0, 1]);
    expect(gate.queued).toBe(3);
    releases[1]!.resolve();
    await settle();
    expect(started).toEqual([0, 1, 2]);
    releases[0]!.resolve();
    releases[2]!.resolve();
    await settle();
    expect(started).toEqual([0, 1, 2, 3, 4]);
    releases[3]!.resolve();
    releases[4]!.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4]);
    expect(mostRunning).toBe(2);
    expect(gate.queued).toBe(0);
  });

  it('frees the slot of a task that fails, and hands its error to that caller only', async () => {
    const gate = new WriteGate(1);
    const failing = deferred();
    const first = gate.run(() => failing.promise);
    const second = gate.run(async () => 'second ran');
    failing.reject(new Error('store failed'));
    await expect(first).rejects.toThrow('store failed');
    await expect(second).resolves.toBe('second ran');
    await expect(gate.run(async () => 'free again')).resolves.toBe('free again');
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => new WriteGate(0)).toThrow(/positive integer/);
    expect(() => new WriteGate(1.5)).toThrow(/positive integer/);
  });
});
