import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lastPresent } from '../src/store/gallop';

describe('lastPresent', () => {
  it('finds the end of a gapless run from any present start, within the bound, in O(log n) lookups', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 5_000 }),
        fc.integer({ min: 0, max: 5_000 }),
        fc.integer({ min: 1, max: 6_000 }),
        async (runEnd, startSeed, bound) => {
          const from = runEnd === 0 ? 0 : startSeed % (runEnd + 1);
          let lookups = 0;
          const present = async (n: number) => {
            lookups += 1;
            return n >= 1 && n <= runEnd;
          };
          const found = await lastPresent(from, present, Math.max(bound, from));
          expect(found).toBe(Math.max(from, Math.min(runEnd, Math.max(bound, from))));
          expect(lookups).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(runEnd + 2)) + 2);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never asks past the bound', async () => {
    const asked: number[] = [];
    const found = await lastPresent(
      0,
      async (n) => {
        asked.push(n);
        return true;
      },
      10,
    );
    expect(found).toBe(10);
    expect(Math.max(...asked)).toBeLessThanOrEqual(10);
  });
});
