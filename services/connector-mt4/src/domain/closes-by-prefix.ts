import { addClose, type BrokerRecord, type FoundClose, foundCloseRecord } from '@mtx/connector-runtime/adapter';
import { decimalField, integerField, textField } from '@mtx/connector-runtime/terminal-fields';

/** The last MT4 order type a customer trades (OP_SELLSTOP); 6 and 7 are balance and credit operations. */
const lastTradeType = 5;
/** How MT4 marks the comment of an order its trade server closed itself: stop loss, take profit, stop out. */
const serverCloseMark = /\[sl\]|\[tp\]|^so:/i;

/**
 * The closes of a close request known only by its client-id prefix, from MT4's history pool
 * (docs/terminal-bridge.md, "Closes by client-id prefix"). Pure: the caller reads the closed orders.
 *
 * An OrderClose or OrderDelete sends no comment, so no closed order names the close id that closed it. Every
 * order closed or deleted in the window is claimed as `<prefix>t<ticket>`, except what the trade server did
 * by itself: closes MT4 marks `[sl]`, `[tp]` or `so:` in the comment, and pending orders that reached their
 * expiration. A close the customer made by hand (or another close request made) in the same window is claimed
 * too: nothing in MT4's history tells it apart.
 */
export function mt4ClosesByPrefix(prefix: string, orders: Array<Map<string, string>>, fromSeconds: number): BrokerRecord[] {
  const found = new Map<number, FoundClose>();
  for (const order of orders) {
    const type = integerField(order, 'type');
    const closedAt = integerField(order, 'time_close');
    if (type < 0 || type > lastTradeType || closedAt < fromSeconds) continue;
    if (serverCloseMark.test(textField(order, 'comment'))) continue;
    const expiration = integerField(order, 'expiration');
    if (type > 1 && expiration > 0 && closedAt >= expiration) continue;
    const ticket = integerField(order, 'ticket');
    const position = type <= 1;
    addClose(found, {
      ticket,
      symbol: textField(order, 'symbol'),
      type,
      volume: decimalField(order, 'volume'),
      price: position ? decimalField(order, 'price_close') : 0,
      order: ticket,
      // MT4 has one ticket per order: a market close reports it as the deal too (as its `close` answer does).
      deal: position ? ticket : 0,
    });
  }
  return [...found.values()].sort((a, b) => a.ticket - b.ticket).map((close) => foundCloseRecord(`${prefix}t${close.ticket}`, close));
}
