import { context, type Context } from '@opentelemetry/api';
import type { HistoryReplyMessage, HistoryRequestMessage } from '@mtx/shared/connector/desk-messages';
import { decodeList } from './bridge/lists';
import { type HistoryItem, historySourceOf } from './history-sources';
import type { ConnectorRuntimeOptions } from './runtime-context';
import { isNothingSent, isOutcomeUnknown, TerminalAnswerError, type TerminalHandle } from './terminal-access';
import { integerField, requestArguments } from './terminal-fields';

/** The terminal answers at most this many history items a request (docs/terminal-bridge.md, "Lists"). */
const pageItemsMax = 500;
/**
 * Pages of the terminal's history one read takes at most, newest first: past them the reply says down to which
 * time it is complete, and the requester pages on from there.
 */
export const historyPagesMax = 20;

/** Newest first: by time, then by key (ticket). */
export function newestFirst(left: HistoryItem, right: HistoryItem): number {
  return right.timeMs - left.timeMs || right.key - left.key;
}

/**
 * History reads (the `history` op): one account's deals or orders in a time range, newest first, strictly
 * before the requester's position, at most `limit` of them. MT5 lists its deals oldest first, so their pages are
 * read from the end backwards until the newest `limit` matches are certain, or the page bound is met (then
 * `complete_after_unix_ms` says from which time on the answer is whole). A list in another order (MT5 history
 * orders, MT4's pool by ticket) is read whole, up to the page bound. Reads only.
 */
export class HistoryReads {
  constructor(private readonly options: ConnectorRuntimeOptions) {}

  async history(request: HistoryRequestMessage, traceContext: Context = context.active()): Promise<HistoryReplyMessage> {
    const startedMs = Date.now();
    const reply = (status: HistoryReplyMessage['status'], message: string, items: HistoryItem[] = [], more = false, floorMs = 0) => ({
      account_id: request.account_id,
      status,
      message,
      deals: items.flatMap((item) => (item.deal ? [item.deal] : [])),
      orders: items.flatMap((item) => (item.order ? [item.order] : [])),
      more,
      complete_after_unix_ms: floorMs,
      latency_ms: Date.now() - startedMs,
    });
    const limit = request.limit;
    if (request.kind !== 'deals' && request.kind !== 'orders') return reply('unavailable', 'kind must be deals or orders; nothing read');
    if (!(limit >= 1 && limit <= pageItemsMax)) return reply('unavailable', `limit must be 1-${pageItemsMax}; nothing read`);
    if (request.deadline_unix_ms > 0 && startedMs > request.deadline_unix_ms)
      return reply('unavailable', 'not read: the request reached the terminal after its deadline');
    try {
      return await this.options.terminals.withTerminal(
        request.account_id,
        async (terminal) => {
          const read = await this.read(terminal, request);
          if (read === 'too_long')
            return reply(
              'unavailable',
              `not read: more than ${pageItemsMax * historyPagesMax} history ${request.kind} in the range on this platform; ask for a shorter range`,
            );
          const { items, floorMs } = read;
          const certain = items.filter((item) => item.timeMs > floorMs).sort(newestFirst);
          return reply('ok', '', certain.slice(0, limit), certain.length > limit, floorMs);
        },
        traceContext,
      );
    } catch (error) {
      if (isNothingSent(error) || isOutcomeUnknown(error) || error instanceof TerminalAnswerError)
        return reply('unavailable', `not read: ${error.message}`);
      throw error;
    }
  }

  private deadlineMs(request: HistoryRequestMessage): number {
    const configured = this.options.config.BROKER_READ_DEADLINE_MS;
    const deadline = Number(request.deadline_unix_ms);
    return deadline > 0 ? Math.max(1, Math.min(configured, deadline - Date.now())) : configured;
  }

  /** The matching items read, and the time down to which they are whole (0: the whole range was read). */
  private async read(
    terminal: TerminalHandle,
    request: HistoryRequestMessage,
  ): Promise<{ items: HistoryItem[]; floorMs: number } | 'too_long'> {
    const source = historySourceOf(this.options.adapter.platform, request.kind);
    const fromMs = Number(request.from_unix_ms);
    const toMs = Number(request.to_unix_ms);
    const beforeMs = Number(request.before_unix_ms);
    const beforeKey = Number(request.before_ticket);
    // With a key bound of 0 nothing at the bound's own time is wanted: reading it would only spend the page bound.
    const upperMs = beforeMs > 0 ? Math.min(toMs, beforeKey > 0 ? beforeMs : beforeMs - 1) : toMs;
    const suffixed = request.symbol ? `${request.symbol}${request.symbol_suffix}` : '';
    const wanted = (item: HistoryItem) =>
      item.timeMs >= fromMs &&
      item.timeMs <= toMs &&
      (!request.symbol || item.symbol === request.symbol || item.symbol === suffixed) &&
      (beforeMs <= 0 || item.timeMs < beforeMs || (item.timeMs === beforeMs && item.key < beforeKey));
    // An MT4 opening deal is listed with its order's close, which may come later than the range: read until now.
    const range = {
      kind: source.command,
      from: terminal.serverSecondsOf(fromMs),
      to: source.chronological ? terminal.serverSecondsOf(upperMs) : terminal.serverTimeSeconds() + 86_400,
    };
    const deadlineMs = this.deadlineMs(request);
    const probe = await terminal.request('history', requestArguments({ ...range, offset: 0, limit: 1 }), deadlineMs);
    let end = integerField(probe, 'total');
    // A list not in time order is whole only when read whole.
    if (!source.chronological && end > pageItemsMax * historyPagesMax) return 'too_long';
    const items: HistoryItem[] = [];
    let floorMs = 0;
    for (let page = 0; end > 0; page++) {
      const start = Math.max(0, end - pageItemsMax);
      const fields = await terminal.request('history', requestArguments({ ...range, offset: start, limit: end - start }), deadlineMs);
      const rows = decodeList(fields, source.command);
      items.push(...source.convert(terminal, rows).filter(wanted));
      end = start;
      if (end === 0 || rows.length === 0) break;
      const oldestMs = source.rowTimeMs(terminal, rows[0]!);
      // Items newer than the oldest row read are whole; enough of them answers the request.
      const certain = source.chronological ? items.filter((item) => item.timeMs > oldestMs).length : 0;
      if (certain > request.limit || page + 1 >= historyPagesMax) {
        floorMs = oldestMs;
        break;
      }
    }
    if (source.openItems) {
      const open = await this.options.adapter.listOpen(terminal, 'position', deadlineMs);
      items.push(...source.openItems(terminal, open).filter(wanted));
    }
    return { items, floorMs };
  }
}
