import { describe, expect, it } from 'vitest';
import { Freshness } from '../src/freshness';

describe('freshness', () => {
  it('trusts an answer within the window until a change of its key comes after its load began', () => {
    let nowMs = 1_000;
    const freshness = new Freshness(50, 10, () => nowMs);
    const loadA = freshness.begin();
    const loadB = freshness.begin();
    expect(freshness.trusts('a', loadA)).toBe(true);
    nowMs += 50;
    expect(freshness.trusts('a', loadA)).toBe(true);
    nowMs += 1;
    expect(freshness.trusts('a', loadA)).toBe(false);
    nowMs -= 1;
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
