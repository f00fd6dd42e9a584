import { describe, expect, it } from 'vitest';
import { collectLoadGeneratorGarbage } from './load-tools';

describe('benchmark load tools', () => {
  it('collects the load generator garbage fully before a phase, old generation included', async () => {
    // Promoted first (two scavenges keep it alive), so only a full collection frees it.
    let kept: { payload: number[] } | undefined = { payload: Array.from({ length: 10_000 }, (_, index) => index) };
    const reference = new WeakRef(kept);
    for (let round = 0; round < 4; round++) Array.from({ length: 200_000 }, (_, index) => ({ index }));
    expect(reference.deref()?.payload.length).toBe(10_000);
    kept = undefined;
    // A WeakRef's target read in a job stays alive until the job ends.
    await new Promise((resolve) => setImmediate(resolve));
    const startedMs = performance.now();
    await collectLoadGeneratorGarbage();
    expect(reference.deref()).toBeUndefined();
    // The pause that lets the collection's background sweeping finish before the clock starts.
    expect(performance.now() - startedMs).toBeGreaterThanOrEqual(450);
  });
});
