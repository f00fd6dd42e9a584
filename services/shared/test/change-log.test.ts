import { describe, expect, it } from 'vitest';
import { ChangeLog } from '../src/cache/change-log';

describe('change log', () => {
  it("reports each key's latest mark, and a forgotten key as changed as late as the latest mark forgotten", () => {
    const log = new ChangeLog(2);
    expect(log.lastChange('a')).toBe(Number.NEGATIVE_INFINITY);
    log.note('a', 1);
    log.note('b', 5);
    log.note('a', 7);
    expect(log.lastChange('a')).toBe(7);
    expect(log.lastChange('b')).toBe(5);
    // 'b' is now the oldest and is pushed out by 'c': unknown keys count as changed at 5.
    log.note('c', 9);
    expect(log.lastChange('b')).toBe(5);
    expect(log.lastChange('never-seen')).toBe(5);
    expect(log.lastChange('a')).toBe(7);
    log.noteAll(12);
    expect(log.lastChange('a')).toBe(12);
    expect(log.lastChange('c')).toBe(12);
  });
});
