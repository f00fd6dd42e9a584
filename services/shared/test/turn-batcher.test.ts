import { describe, expect, it } from 'vitest';
import { TurnBatcher } from '../src/messaging/turn-batcher';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('TurnBatcher', () => {
  it('hands over what one turn queued, across microtask checkpoints, at the end of the turn', async () => {
    const delivered: number[][] = [];
    const batcher = new TurnBatcher<number>((items) => delivered.push(items), 100);
    for (let item = 0; item < 5; item += 1) {
      batcher.push(item);
      await Promise.resolve();
    }
    expect(delivered).toEqual([]);
    expect(batcher.waiting).toBe(5);
    await nextTurn();
    expect(delivered).toEqual([[0, 1, 2, 3, 4]]);
    batcher.push(5);
    await nextTurn();
    expect(delivered).toEqual([[0, 1, 2, 3, 4], [5]]);
  });

  it('hands over at once when maxItems are waiting, and the rest at the end of the turn', async () => {
    const delivered: number[][] = [];
    const batcher = new TurnBatcher<number>((items) => delivered.push(items), 3);
    for (let item = 0; item < 7; item += 1) batcher.push(item);
    expect(delivered).toEqual([
      [0, 1, 2],
      [3, 4, 5],
    ]);
    await nextTurn();
    expect(delivered.at(-1)).toEqual([6]);
  });

  it('flushes on demand, drops on discard, and refuses a bound below one', async () => {
    const delivered: string[][] = [];
    const batcher = new TurnBatcher<string>((items) => delivered.push(items), 10);
    batcher.push('a');
    batcher.flush();
    expect(delivered).toEqual([['a']]);
    batcher.push('b');
    batcher.discard();
    await nextTurn();
    expect(delivered).toEqual([['a']]);
    expect(() => new TurnBatcher<string>(() => undefined, 0)).toThrow(/at least 1/);
  });
});
