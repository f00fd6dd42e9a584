import { addClose, type BrokerRecord, type FoundClose, foundCloseRecord } from '@mtx/connector-runtime/adapter';
import { clientTag, tagOfComment } from '@mtx/connector-runtime/bridge/client-tag';
import { decimalField, integerField, textField } from '@mtx/connector-runtime/terminal-fields';

/** MT5 `DEAL_ENTRY_OUT` and `DEAL_ENTRY_OUT_BY`: the deals that close (part of) a position. */
const closingEntries = new Set([1, 3]);
const orderStateCanceled = 2;
const firstPendingType = 2;

/**
 * The closes of a close request known only by its client-id prefix, from MT5 history (docs/terminal-bridge.md,
 * "Closes by client-id prefix"). Pure: the caller reads the deals and orders.
 *
 * - A position close carries its close id's tag in the closing deal's comment, so a closing deal (entry out or
 *   out_by) of position P in the window is this request's when its tag is the tag of `<prefix>t<P>`: proved.
 * - A pending order's delete (TRADE_ACTION_REMOVE) carries no comment, so nothing ties it to a close id. Every
 *   pending order cancelled in the window (state CANCELED, not EXPIRED nor REJECTED) is claimed: that is right
 *   unless the customer, or another close request, deleted an order of this account in the same window, and
 *   nothing on the trade server tells those apart.
 */
export function mt5ClosesByPrefix(
  prefix: string,
  deals: Array<Map<string, string>>,
  orders: Array<Map<string, string>>,
  fromSeconds: number,
): BrokerRecord[] {
  const found = new Map<number, FoundClose>();
  for (const deal of deals) {
    if (!closingEntries.has(integerField(deal, 'entry')) || integerField(deal, 'time') < fromSeconds) continue;
    const position = integerField(deal, 'position');
    if (tagOfComment(textField(deal, 'comment')) !== clientTag(`${prefix}t${position}`)) continue;
    addClose(found, {
      ticket: position,
      symbol: textField(deal, 'symbol'),
      // A sell deal closes a buy position and a buy deal a sell one.
      type: integerField(deal, 'type') === 0 ? 1 : 0,
      volume: decimalField(deal, 'volume'),
      price: decimalField(deal, 'price'),
      order: integerField(deal, 'order'),
      deal: integerField(deal, 'ticket'),
    });
  }
  for (const order of orders) {
    const ticket = integerField(order, 'ticket');
    const type = integerField(order, 'type');
    if (type < firstPendingType || integerField(order, 'state') !== orderStateCanceled) continue;
    if (integerField(order, 'time_done') < fromSeconds || found.has(ticket)) continue;
    found.set(ticket, {
      ticket,
      symbol: textField(order, 'symbol'),
      type,
      volume: decimalField(order, 'volume_initial'),
      price: 0,
      order: ticket,
      deal: 0,
    });
  }
  return [...found.values()].sort((a, b) => a.ticket - b.ticket).map((close) => foundCloseRecord(`${prefix}t${close.ticket}`, close));
}
