import { describe, expect, it } from 'vitest';
import { LinkedMap } from '../src/cache/linked-map';

/** A deterministic stream of small integers, so a failure replays. */
function randomSource(seed: number) {
  let state = seed >>> 0;
  return (below: number) => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state % below;
  };
}

describe('LinkedMap', () => {
  it('keeps the order and contents a Map keeps, through 20,000 random sets, deletes and shifts', () => {
    const random = randomSource(7);
    const linked = new LinkedMap<string, number>();
    const reference = new Map<string, number>();
    for (let step = 0; step < 20_000; step++) {
      const key = `k${random(300)}`;
      const action = random(10);
      if (action < 5) {
        linked.set(key, step);
        reference.set(key, step);
      } else if (action < 8) {
        expect(linked.delete(key)).toBe(reference.delete(key));
      } else if (action < 9) {
        const oldest = reference.entries().next().value;
        if (oldest) reference.delete(oldest[0]);
        expect(linked.shift()).toEqual(oldest);
      } else {
        expect(linked.get(key)).toBe(reference.get(key));
        expect(linked.has(key)).toBe(reference.has(key));
      }
      expect(linked.size).toBe(reference.size);
    }
    expect([...linked]).toEqual([...reference]);
  });

  it('setting a key it holds changes the value in place; deleting and setting it again moves it to the back', () => {
    const linked = new LinkedMap<string, number>();
    linked.set('a', 1).set('b', 2).set('c', 3);
    linked.set('a', 10);
    expect([...linked]).toEqual([
      ['a', 10],
      ['b', 2],
      ['c', 3],
    ]);
    linked.delete('a');
    linked.set('a', 11);
    expect([...linked].map(([key]) => key)).toEqual(['b', 'c', 'a']);
    expect(linked.shift()).toEqual(['b', 2]);
    linked.clear();
    expect(linked.size).toBe(0);
    expect(linked.shift()).toBeUndefined();
    expect([...linked]).toEqual([]);
  });

  it('iterates as a Map does while entries are deleted and added: the current one, ones ahead, new ones at the back', () => {
    const linked = new LinkedMap<string, number>();
    const reference = new Map<string, number>();
    for (const target of [linked, reference]) for (let index = 0; index < 8; index++) target.set(`k${index}`, index);
    const visit = (target: LinkedMap<string, number> | Map<string, number>) => {
      const seen: string[] = [];
      for (const [key, value] of target) {
        seen.push(key);
        target.delete(key);
        if (value % 3 === 0) target.delete(`k${value + 1}`);
        if (value === 2) target.set('late', 99);
      }
      return seen;
    };
    expect(visit(linked)).toEqual(visit(reference));
    expect(linked.size).toBe(0);
  });

  it('shifts its oldest entry when full without walking what was evicted before (100,000 entries, 300,000 inserts)', () => {
    // A plain Map skips every evicted place from the start of its table (tens of µs per eviction at this size);
    // the linked order does not. Asserted as behaviour: the evictions leave exactly the newest entries, in order.
    const linked = new LinkedMap<number, number>();
    const entriesMax = 100_000;
    const outOfOrder: number[] = [];
    for (let key = 0; key < 300_000; key++) {
      linked.set(key, key);
      if (linked.size > entriesMax && linked.shift()?.[0] !== key - entriesMax) outOfOrder.push(key);
    }
    expect(outOfOrder).toEqual([]);
    expect(linked.size).toBe(entriesMax);
    expect(linked.get(199_999)).toBeUndefined();
    expect(linked.get(200_000)).toBe(200_000);
    expect(linked.shift()).toEqual([200_000, 200_000]);
  });
});
