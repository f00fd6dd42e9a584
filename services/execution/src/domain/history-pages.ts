import { AppError } from '@mtx/shared/errors';

/**
 * Paging history merged across accounts (GET /v1/history/deals and /orders). The order is newest first by
 * time, then account id, then the account's own key (its ticket), all descending, so every item has one place;
 * a cursor is the place of the last item shown, encoded opaquely with the kind and range of the first page. Each
 * account is then asked only for what comes after that place, so paging neither skips nor repeats an item,
 * however the accounts trade meanwhile (a newer item sorts before the cursor). Pure.
 */

export const historyRangeMaxMs = 90 * 86_400_000;
export const historyRangeDefaultMs = 30 * 86_400_000;
export const historyLimitDefault = 50;
export const historyLimitMax = 100;

export interface HistoryPosition {
  timeMs: number;
  accountId: string;
  key: number;
}

export interface HistoryCursor extends HistoryPosition {
  kind: 'deals' | 'orders';
  fromMs: number;
  toMs: number;
}

const invalidCursor = () =>
  new AppError('invalid_request', 'starting_after is not a cursor this API gave out', { param: 'starting_after' });

export function encodeCursor(cursor: HistoryCursor): string {
  const packed = [1, cursor.kind, cursor.fromMs, cursor.toMs, cursor.timeMs, cursor.accountId, cursor.key];
  return Buffer.from(JSON.stringify(packed)).toString('base64url');
}

export function decodeCursor(text: string): HistoryCursor {
  let packed: unknown;
  try {
    packed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(packed) || packed.length !== 7 || packed[0] !== 1) throw invalidCursor();
  const [, kind, fromMs, toMs, timeMs, accountId, key] = packed;
  const integer = (value: unknown): value is number => Number.isSafeInteger(value);
  if ((kind !== 'deals' && kind !== 'orders') || typeof accountId !== 'string' || accountId.length > 80) throw invalidCursor();
  if (!integer(fromMs) || !integer(toMs) || !integer(timeMs) || !integer(key) || fromMs > toMs) throw invalidCursor();
  return { kind, fromMs, toMs, timeMs, accountId, key };
}

/** Negative when `left` comes first (is newer). */
export function compareNewestFirst(left: HistoryPosition, right: HistoryPosition): number {
  if (left.timeMs !== right.timeMs) return right.timeMs - left.timeMs;
  if (left.accountId !== right.accountId) return left.accountId < right.accountId ? 1 : -1;
  return right.key - left.key;
}

/**
 * What an account is asked for after `cursor`: items older than its time, and at its time, those that sort after
 * it: every item of an account id below the cursor's, the cursor's own account's below its key, none above.
 */
export function accountBound(cursor: HistoryPosition | undefined, accountId: string): { beforeMs: number; beforeKey: number } {
  if (!cursor) return { beforeMs: 0, beforeKey: 0 };
  const beforeKey = accountId === cursor.accountId ? cursor.key : accountId < cursor.accountId ? Number.MAX_SAFE_INTEGER : 0;
  return { beforeMs: cursor.timeMs, beforeKey };
}

export interface AccountHistoryPage<T> {
  accountId: string;
  items: Array<{ timeMs: number; key: number; view: T }>;
  /** The account holds more after its last item. */
  more: boolean;
  /** Its items are whole only after this time (0: whole). */
  completeAfterMs: number;
}

/**
 * The next page over every account's answer: the newest `limit` items, cut where an account's answer stops
 * being whole (an account that answered a full page never cuts: the page cannot reach past its last item, and
 * the next page asks it again below that).
 */
export function mergeHistoryPages<T>(
  pages: Array<AccountHistoryPage<T>>,
  limit: number,
): { data: T[]; hasMore: boolean; next?: HistoryPosition } {
  const floorMs = Math.max(
    0,
    ...pages.filter((page) => page.completeAfterMs > 0 && page.items.length < limit).map((page) => page.completeAfterMs),
  );
  const merged = pages
    .flatMap((page) => page.items.map((item) => ({ timeMs: item.timeMs, accountId: page.accountId, key: item.key, view: item.view })))
    .filter((item) => item.timeMs > floorMs)
    .sort(compareNewestFirst);
  const shown = merged.slice(0, limit);
  // An account that could not read its whole range has more below what it answered, full page or not.
  const hasMore = merged.length > limit || pages.some((page) => page.more || page.completeAfterMs > 0);
  if (!hasMore) return { data: shown.map((item) => item.view), hasMore };
  const last = shown[shown.length - 1];
  // Fewer than a page above the cut: the next page starts at the cut, below every account's items at its time.
  const next =
    (shown.length >= limit || floorMs === 0) && last
      ? { timeMs: last.timeMs, accountId: last.accountId, key: last.key }
      : { timeMs: floorMs + 1, accountId: '', key: 0 };
  return { data: shown.map((item) => item.view), hasMore, next };
}
