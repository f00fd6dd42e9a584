import { describe, expect, it } from 'vitest';
import { BoundedCache } from '../src/cache/bounded-cache';

describe('BoundedCache', () => {
  it('never holds more than its bound, and evicts an entry not used since it was stored before one that was', () => {
    const cache = new BoundedCache<number>(3);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect(cache.get('a')).toBe(1);
    cache.set('d', 4);
    expect(cache.size).toBe(3);
    // b was the oldest not used since: it went; a, used, stayed.
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
    expect(cache.get('d')).toBe(4);
    // Every entry used: the one just stored stays, and exactly one of the others goes.
    cache.set('e', 5);
    expect(cache.size).toBe(3);
    expect(cache.get('e')).toBe(5);
    expect([cache.get('a'), cache.get('c'), cache.get('d')].filter((value) => value === undefined)).toHaveLength(1);
  });

  it('replaces a value in place, and counts the replacement as a use', () => {
    const cache = new BoundedCache<string>(2);
    cache.set('a', 'first');
    cache.set('b', 'b');
    cache.set('a', 'second');
    cache.set('c', 'c');
    expect(cache.get('a')).toBe('second');
    expect(cache.get('b')).toBeUndefined();
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(1);
  });

  it('keeps a hot key over a stream of one-off keys many times its bound', () => {
    const cache = new BoundedCache<number>(100);
    cache.set('hot', 0);
    for (let index = 0; index < 10_000; index += 1) {
      expect(cache.get('hot')).toBe(0);
      cache.set(`cold-${index}`, index);
      expect(cache.size).toBeLessThanOrEqual(100);
    }
    expect(cache.get('cold-9999')).toBe(9_999);
    expect(cache.get('cold-0')).toBeUndefined();
  });

  it('holds nothing with a bound of zero', () => {
    const cache = new BoundedCache<number>(0);
    cache.set('a', 1);
    expect(cache.size).toBe(0);
    expect(cache.get('a')).toBeUndefined();
  });
});
