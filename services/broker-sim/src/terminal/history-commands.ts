import type { AccountState, Deal } from '../domain/engine';
import { type Answer, refusal, type RequestArguments, ResultFields } from './answer';
import { digitsOf, maxListItems, serverTimeSeconds } from './read-commands';
import { sentWith, type TerminalAccount } from './terminal-account';

/**
 * `history` and `find` (docs/terminal-bridge.md), read from broker-sim's account: its deals as the MT5 history
 * deals, and the history orders derived from them (the order each deal filled, and the pending orders deleted,
 * from the request records) as MT5 history orders and MT4's closed orders. The magic and comment of a deal are
 * the ones its trade call sent (see `TerminalAccount.tradeCall`); broker-sim keeps no stops of closed items, so
 * history orders show them as 0.
 */

const dealEntry = { in: 0, out: 1, inout: 2 } as const;
/** MT5 `DEAL_REASON_*`: an EA's deal is EXPERT (3), a seeded one CLIENT (0), stops SL (4) and TP (5). */
const dealReason = { client: 3, seed: 0, sl: 4, tp: 5, trigger: 3 } as const;
const orderStateCanceled = 2;
const orderStateFilled = 4;

/** One history order, in the fields both platforms draw from. */
interface HistoryOrder {
  ticket: number;
  type: number;
  state: number;
  symbol: string;
  volume: number;
  priceOpen: number;
  priceClose: number;
  timeOpen: number;
  timeDone: number;
  position: number;
  profit: number;
  swap: number;
  magic: number;
  comment: string;
  reason: number;
}

const seconds = (timeMs: number) => Math.floor(timeMs / 1000);

function mt5HistoryOrders(account: AccountState): HistoryOrder[] {
  const orders: HistoryOrder[] = account.deals
    .filter((deal) => deal.order > 0)
    .map((deal) => ({
      ticket: deal.order,
      type: deal.type,
      state: orderStateFilled,
      symbol: deal.symbol,
      volume: deal.volume,
      priceOpen: deal.price,
      priceClose: deal.price,
      timeOpen: seconds(deal.timeMs),
      timeDone: seconds(deal.timeMs),
      position: deal.position,
      profit: 0,
      swap: 0,
      ...sentWith(deal.clientId),
      reason: dealReason[deal.reason],
    }));
  return [...orders, ...deletedOrders(account)].sort((a, b) => a.timeDone - b.timeDone || a.ticket - b.ticket);
}

function deletedOrders(account: AccountState): HistoryOrder[] {
  return [...account.requests.values()]
    .filter((record) => record.action === 'delete' && record.outcome?.ok)
    .map((record) => ({
      ticket: record.ticket,
      type: record.type,
      state: orderStateCanceled,
      symbol: record.symbol,
      volume: record.volume,
      priceOpen: record.outcome!.price,
      priceClose: record.outcome!.price,
      timeOpen: seconds(record.receivedAtMs),
      timeDone: seconds(record.receivedAtMs),
      position: 0,
      profit: 0,
      swap: 0,
      magic: 0,
      comment: '',
      reason: 3,
    }));
}

/**
 * MT4 marks the comment of an order its trade server closed at a stop: `[sl]` or `[tp]` appended, the order's
 * own comment cut so that the whole stays within MT's 31 characters.
 */
function closedComment(comment: string, deal: Deal): string {
  if (deal.reason !== 'sl' && deal.reason !== 'tp') return comment;
  const mark = `[${deal.reason}]`;
  return `${[...comment].slice(0, 31 - mark.length).join('')}${mark}`;
}

/** MT4's history pool: each closing deal closes its ticket (in part: the lots it closed), plus deleted orders. */
function mt4HistoryOrders(account: AccountState): HistoryOrder[] {
  const opening = new Map<number, Deal>();
  for (const deal of account.deals) if (deal.entry === 'in' && !opening.has(deal.position)) opening.set(deal.position, deal);
  const closed: HistoryOrder[] = account.deals
    .filter((deal) => deal.entry !== 'in')
    .map((deal) => {
      const opened = opening.get(deal.position);
      return {
        ticket: deal.position,
        type: deal.type === 0 ? 1 : 0,
        state: orderStateFilled,
        symbol: deal.symbol,
        volume: deal.volume,
        priceOpen: opened?.price ?? deal.price,
        priceClose: deal.price,
        timeOpen: seconds(opened?.timeMs ?? deal.timeMs),
        timeDone: seconds(deal.timeMs),
        position: deal.position,
        profit: deal.profit,
        swap: deal.swap ?? 0,
        ...sentWith(opened?.clientId ?? ''),
        comment: closedComment(sentWith(opened?.clientId ?? '').comment, deal),
        reason: 0,
      };
    });
  // By ticket, as the reference EA lists the pool (services/connector-mt4/terminal/MtxBridgeHistory.mqh).
  return [...closed, ...deletedOrders(account)].sort((a, b) => a.ticket - b.ticket || a.timeDone - b.timeDone);
}

function dealFields(account: AccountState, deal: Deal): ResultFields {
  const digits = digitsOf(account, deal.symbol);
  return new ResultFields()
    .integer('ticket', deal.ticket)
    .integer('order', deal.order)
    .integer('position', deal.position)
    .integer('time', seconds(deal.timeMs))
    .integer('time_msc', deal.timeMs)
    .integer('type', deal.type)
    .integer('entry', dealEntry[deal.entry])
    .text('symbol', deal.symbol)
    .decimal('volume', deal.volume)
    .price('price', deal.price, digits)
    .decimal('profit', deal.profit)
    .decimal('swap', deal.swap ?? 0)
    .decimal('commission', 0)
    .decimal('fee', 0)
    .integer('magic', sentWith(deal.clientId).magic)
    .text('comment', sentWith(deal.clientId).comment)
    .integer('reason', dealReason[deal.reason]);
}

function orderFields(account: AccountState, order: HistoryOrder): ResultFields {
  const digits = digitsOf(account, order.symbol);
  if (account.record.platform === 'mt5')
    return new ResultFields()
      .integer('ticket', order.ticket)
      .integer('type', order.type)
      .integer('state', order.state)
      .text('symbol', order.symbol)
      .decimal('volume_initial', order.volume)
      .decimal('volume_current', order.state === orderStateFilled ? 0 : order.volume)
      .price('price_open', order.priceOpen, digits)
      .price('sl', 0, digits)
      .price('tp', 0, digits)
      .integer('time_setup', order.timeOpen)
      .integer('time_done', order.timeDone)
      .integer('position', order.position)
      .integer('magic', order.magic)
      .text('comment', order.comment)
      .integer('reason', order.reason);
  return new ResultFields()
    .integer('ticket', order.ticket)
    .integer('type', order.type)
    .text('symbol', order.symbol)
    .decimal('volume', order.volume)
    .price('price_open', order.priceOpen, digits)
    .price('price_close', order.priceClose, digits)
    .integer('time_open', order.timeOpen)
    .integer('time_close', order.timeDone)
    .price('sl', 0, digits)
    .price('tp', 0, digits)
    .decimal('profit', order.profit)
    .decimal('swap', order.swap)
    .decimal('commission', 0)
    .integer('magic', order.magic)
    .text('comment', order.comment)
    .integer('expiration', 0);
}

export async function historyCommand(terminal: TerminalAccount, args: RequestArguments): Promise<Answer> {
  const problem = args.problem('kind:t!,from:i!,to:i!,offset:i,limit:i');
  if (problem) return problem;
  const kind = args.text('kind');
  const offset = args.integer('offset');
  const limit = args.integer('limit', maxListItems);
  if (kind !== 'deals' && kind !== 'orders') return refusal('bad_request', 'kind must be deals or orders');
  if (offset < 0 || limit < 1 || limit > maxListItems)
    return refusal('bad_request', `offset must be 0 or more and limit 1-${maxListItems}`);
  const account = await terminal.state();
  const from = args.integer('from');
  const to = args.integer('to');
  const inRange = (time: number) => time >= from && time <= to;
  let items: ResultFields[];
  if (kind === 'deals') {
    if (account.record.platform === 'mt4') return refusal('bad_request', 'MT4 has no deals; ask for kind=orders');
    items = account.deals.filter((deal) => inRange(seconds(deal.timeMs))).map((deal) => dealFields(account, deal));
  } else {
    const orders = account.record.platform === 'mt5' ? mt5HistoryOrders(account) : mt4HistoryOrders(account);
    items = orders.filter((order) => inRange(order.timeDone)).map((order) => orderFields(account, order));
  }
  const page = items.slice(offset, offset + limit);
  return new ResultFields()
    .list(kind, page, offset + page.length < items.length)
    .integer('total', items.length)
    .answer();
}

const tagPattern = /^~[a-z2-7]{10}$/;
const maxFindTags = 50;

export async function findCommand(terminal: TerminalAccount, args: RequestArguments): Promise<Answer> {
  const problem = args.problem('tags:t!,from:i!');
  if (problem) return problem;
  const tags = args.text('tags').split(',');
  if (tags.length > maxFindTags) return refusal('bad_request', `at most ${maxFindTags} tags`);
  if (!tags.every((tag) => tagPattern.test(tag))) return refusal('bad_request', 'a tag is ~ and 10 base32 characters');
  const account = await terminal.state();
  const from = args.integer('from');
  // Nothing lies in the future: a day past the server's clock keeps a deal done this second inside the range.
  const until = serverTimeSeconds(terminal) + 86_400;
  const matches: ResultFields[] = [];
  let more = false;
  // One match per item, under the first tag its comment holds, as the reference EAs do.
  const consider = (comment: string, build: (tag: string) => ResultFields) => {
    const tag = tags.find((candidate) => comment.includes(candidate));
    if (!tag) return;
    if (matches.length >= maxListItems) more = true;
    else matches.push(build(tag));
  };
  const item = (
    tag: string,
    where: string,
    ticket: number,
    symbol: string,
    type: number,
    volume: number,
    price: number,
    time: number,
    comment: string,
    magic = 0,
  ) =>
    new ResultFields()
      .text('tag', tag)
      .text('where', where)
      .integer('ticket', ticket)
      .text('symbol', symbol)
      .integer('type', type)
      .decimal('volume', volume)
      .price('price', price, digitsOf(account, symbol))
      .integer('time', time)
      .integer('magic', magic)
      .text('comment', comment);
  for (const position of account.positions.values())
    consider(position.comment, (tag) =>
      item(
        tag,
        'position',
        position.ticket,
        position.symbol,
        position.type,
        position.volume,
        position.priceOpen,
        seconds(position.openedAtMs),
        position.comment,
        position.magic,
      ),
    );
  for (const order of account.orders.values())
    consider(order.comment, (tag) =>
      item(
        tag,
        'order',
        order.ticket,
        order.symbol,
        order.type,
        order.volume,
        order.price,
        seconds(order.placedAtMs),
        order.comment,
        order.magic,
      ),
    );
  if (account.record.platform === 'mt5')
    for (const deal of account.deals) {
      if (seconds(deal.timeMs) < from || seconds(deal.timeMs) > until) continue;
      const comment = sentWith(deal.clientId).comment;
      consider(comment, (tag) =>
        item(
          tag,
          'deal',
          deal.ticket,
          deal.symbol,
          deal.type,
          deal.volume,
          deal.price,
          seconds(deal.timeMs),
          comment,
          sentWith(deal.clientId).magic,
        )
          .integer('order', deal.order)
          .integer('position', deal.position)
          .integer('entry', dealEntry[deal.entry]),
      );
    }
  const history = account.record.platform === 'mt5' ? mt5HistoryOrders(account) : mt4HistoryOrders(account);
  for (const order of history) {
    if (order.timeDone < from || order.timeDone > until) continue;
    consider(order.comment, (tag) =>
      item(
        tag,
        'history_order',
        order.ticket,
        order.symbol,
        order.type,
        order.volume,
        order.priceOpen,
        order.timeDone,
        order.comment,
        order.magic,
      ),
    );
  }
  return new ResultFields().list('matches', matches, more).answer();
}
