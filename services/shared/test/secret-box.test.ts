import { describe, expect, it } from 'vitest';
import { base62Alphabet, randomBase62 } from '../src/service/secret-box';

describe('randomBase62', () => {
  it('makes ids of the asked length from the base62 alphabet, none repeated, across many refills of its pool', () => {
    const ids = Array.from({ length: 20_000 }, () => randomBase62(20));
    for (const id of ids) expect(id).toMatch(/^[0-9A-Za-z]{20}$/);
    // 20,000 ids of 20 characters take well over 400 KB of random bytes: about a hundred pools.
    expect(new Set(ids).size).toBe(ids.length);
    expect(randomBase62(0)).toBe('');
    expect(randomBase62(1)).toMatch(/^[0-9A-Za-z]$/);
  });

  it('draws every character about equally often (no bias towards the first ones)', () => {
    const counts = new Map<string, number>();
    const text = Array.from({ length: 31_000 }, () => randomBase62(20)).join('');
    for (const character of text) counts.set(character, (counts.get(character) ?? 0) + 1);
    expect(counts.size).toBe(base62Alphabet.length);
    const expected = text.length / base62Alphabet.length;
    // 10,000 expected per character: ±5 % is over 5 standard deviations (σ ≈ 99).
    for (const [character, count] of counts) expect(Math.abs(count - expected), character).toBeLessThan(expected * 0.05);
  });
});
