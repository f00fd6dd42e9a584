import { describe, expect, it } from 'vitest';
import { Freshness } from '../src/cache/freshness';

describe('freshness', () => {
  it('trusts an answer within the window until a change of its key comes after its load began', () => {
    let nowMs = 1_000;
    const freshness = new Freshness(50, 10, () => nowMs);
    const loadA = freshness.begin();
    const loadB = freshness.begin();
    expect(freshness.trusts('a', loadA)).toBe(true);
    const windowA = Math.floor(freshness.windowMs('a'));
    nowMs += windowA;
    expect(freshness.trusts('a', loadA)).toBe(true);
    nowMs += 1;
    expect(freshness.trusts('a', loadA)).toBe(false);
    // Within every key's window (three quarters of freshMs at least).
    nowMs = 1_000 + 37;
    // A change in the same millisecond as the load still orders after it.
    freshness.noteChange('a');
    expect(freshness.unchangedSince('a', loadA)).toBe(false);
    expect(freshness.trusts('a', loadA)).toBe(false);
    expect(freshness.trusts('b', loadB)).toBe(true);
    const reload = freshness.begin();
    expect(freshness.trusts('a', reload)).toBe(true);
    freshness.noteAllChanged();
    expect(freshness.trusts('a', reload)).toBe(false);
    expect(freshness.trusts('b', loadB)).toBe(false);
    expect(freshness.trusts('b', freshness.begin())).toBe(true);
  });

  it('gives each key its own window, from three quarters of freshMs to all of it, so answers loaded together expire apart', () => {
    const freshMs = 10_000;
    let nowMs = 0;
    const freshness = new Freshness(freshMs, 1_000, () => nowMs);
    const keys = Array.from({ length: 1_000 }, (_, index) => `cus_${index.toString(36).padStart(8, '0')}`);
    const loaded = freshness.begin();
    // When each key's answer stops being trusted, found by the clock alone, in 100 ms steps.
    const expiredAtMs = new Map<string, number>();
    for (nowMs = 0; nowMs <= freshMs + 100; nowMs += 100)
      for (const key of keys) if (!expiredAtMs.has(key) && !freshness.trusts(key, loaded)) expiredAtMs.set(key, nowMs);
    expect(expiredAtMs.size).toBe(keys.length);
    const times = [...expiredAtMs.values()];
    expect(Math.min(...times)).toBeGreaterThan(freshMs * 0.75);
    expect(Math.max(...times)).toBeLessThanOrEqual(freshMs + 100);
    // Spread evenly over the last quarter: 25 steps of 100 ms, none with more than twice its even share (all of
    // them in one step without the spread).
    const perStep = new Map<number, number>();
    for (const time of times) perStep.set(time, (perStep.get(time) ?? 0) + 1);
    expect(perStep.size).toBeGreaterThanOrEqual(24);
    expect(Math.max(...perStep.values())).toBeLessThanOrEqual((2 * keys.length) / 25);
    // A key's window is the same every time: a reload of one key does not move it.
    expect(freshness.windowMs(keys[0]!)).toBe(freshness.windowMs(keys[0]!));
  });

  it('trusts nothing with a window of 0', () => {
    const freshness = new Freshness(0, 10, () => 5);
    expect(freshness.enabled).toBe(false);
    expect(freshness.trusts('a', freshness.begin())).toBe(false);
  });

  it('stays bounded: a key pushed out of the log counts as changed, never as unchanged', () => {
    const freshness = new Freshness(1_000, 2, () => 0);
    const early = freshness.begin();
    freshness.noteChange('a');
    freshness.noteChange('b');
    freshness.noteChange('c');
    expect(freshness.trusts('never-seen', early)).toBe(false);
    expect(freshness.trusts('never-seen', freshness.begin())).toBe(true);
  });
});
