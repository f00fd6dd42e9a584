import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  accountBound,
  type AccountHistoryPage,
  compareNewestFirst,
  decodeCursor,
  encodeCursor,
  type HistoryPosition,
  mergeHistoryPages,
} from '../src/domain/history-pages';

/**
 * Paging history across accounts (domain/history-pages.ts) against a model of the connector's read
 * (connector-runtime/src/history.ts): each account lists its items oldest first and reads at most `rowsMax` rows
 * from the end, answering the newest `limit` items strictly after the cursor's bound, and, when it could not read
 * the whole range, the time after which its answer is whole. Following the cursors must give every item exactly
 * once, in the newest-first order, however the times tie across accounts and however short the reads are.
 */
interface Item {
  timeMs: number;
  key: number;
}

function connectorRead(items: Item[], bound: { beforeMs: number; beforeKey: number }, limit: number, rowsMax: number) {
  const rows = items
    .filter((item) => bound.beforeMs <= 0 || item.timeMs <= (bound.beforeKey > 0 ? bound.beforeMs : bound.beforeMs - 1))
    .sort((left, right) => left.timeMs - right.timeMs || left.key - right.key);
  const wanted = (item: Item) =>
    bound.beforeMs <= 0 || item.timeMs < bound.beforeMs || (item.timeMs === bound.beforeMs && item.key < bound.beforeKey);
  const read = rows.slice(Math.max(0, rows.length - rowsMax));
  const floorMs = read.length < rows.length && read.length > 0 ? read[0]!.timeMs : 0;
  const certain = read
    .filter(wanted)
    .filter((item) => item.timeMs > floorMs)
    .sort((left, right) => right.timeMs - left.timeMs || right.key - left.key);
  return { items: certain.slice(0, limit), more: certain.length > limit, completeAfterMs: floorMs };
}

function everyPage(accounts: Map<string, Item[]>, limit: number, rowsMax: number): Array<HistoryPosition> {
  const shown: HistoryPosition[] = [];
  let cursor: HistoryPosition | undefined;
  for (let page = 0; page < 10_000; page++) {
    const pages: Array<AccountHistoryPage<HistoryPosition>> = [...accounts].map(([accountId, items]) => {
      const answer = connectorRead(items, accountBound(cursor, accountId), limit, rowsMax);
      return {
        accountId,
        items: answer.items.map((item) => ({ ...item, view: { ...item, accountId } })),
        more: answer.more,
        completeAfterMs: answer.completeAfterMs,
      };
    });
    const merged = mergeHistoryPages(pages, limit);
    expect(merged.data.length).toBeLessThanOrEqual(limit);
    shown.push(...merged.data);
    if (!merged.hasMore) return shown;
    // Through the opaque cursor, as a client sends it back.
    const decoded = decodeCursor(encodeCursor({ ...merged.next!, kind: 'deals', fromMs: 0, toMs: 1 }));
    cursor = { timeMs: decoded.timeMs, accountId: decoded.accountId, key: decoded.key };
  }
  throw new Error('paging did not end');
}

const accountsArbitrary = fc
  .array(
    // Keys unique within an account; times from a small range so that they tie within and across accounts, but
    // never more than twice within an account (a terminal's read holds more rows than one instant's items).
    fc.uniqueArray(fc.record({ key: fc.integer({ min: 1, max: 400 }), timeMs: fc.integer({ min: 1, max: 30 }) }), {
      selector: (item) => item.key,
      maxLength: 40,
    }),
    { minLength: 1, maxLength: 5 },
  )
  .map((lists) =>
    lists.map((list) => list.filter((item, index) => list.filter((other, at) => at < index && other.timeMs === item.timeMs).length < 2)),
  );

describe('history pages across accounts', () => {
  it('follows the cursors to every item exactly once, newest first', () => {
    fc.assert(
      fc.property(accountsArbitrary, fc.integer({ min: 1, max: 7 }), fc.integer({ min: 3, max: 12 }), (lists, limit, rowsMax) => {
        const accounts = new Map(lists.map((items, index) => [`acc_${String.fromCharCode(65 + index)}`, items]));
        const shown = everyPage(accounts, limit, rowsMax);
        const expected = [...accounts]
          .flatMap(([accountId, items]) => items.map((item) => ({ ...item, accountId })))
          .sort(compareNewestFirst);
        expect(shown).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a cursor it did not give out', () => {
    for (const text of [
      '',
      'x',
      Buffer.from('[2,"deals",0,1,1,"a",1]').toString('base64url'),
      Buffer.from('{"a":1}').toString('base64url'),
    ])
      expect(() => decodeCursor(text)).toThrow(/starting_after/);
    expect(() => decodeCursor(Buffer.from('[1,"deals",5,1,1,"a",1]').toString('base64url'))).toThrow(/starting_after/);
  });
});
