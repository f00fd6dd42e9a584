import { findSymbol, type SymbolSpec } from '../domain/catalog';
import { marginFor, type AccountState, type PendingOrder, type Position } from '../domain/engine';
import { type Answer, refusal, type RequestArguments, ResultFields } from './answer';
import type { TerminalAccount } from './terminal-account';

/**
 * The commands that read the terminal (docs/terminal-bridge.md, "Commands": account, symbol, positions,
 * orders, ticket, check), answered from broker-sim's account at current prices as the reference EAs answer
 * them on MT5 (`services/connector-mt5/terminal/MtxBridgeCommands.mqh`) and MT4.
 */

/** Items per list in an answer (docs/terminal-bridge.md, "Bounds"). */
export const maxListItems = 500;

/** A symbol's price digits; 8 for a symbol the server no longer lists, as the reference EAs do. */
export function digitsOf(account: AccountState, symbol: string): number {
  return findSymbol(account.server, symbol)?.instrument.digits ?? 8;
}

export function serverTimeSeconds(terminal: TerminalAccount): number {
  return Math.floor(terminal.broker.market.serverTimeMs() / 1000);
}

export async function accountCommand(terminal: TerminalAccount): Promise<Answer> {
  const account = await terminal.state();
  const figures = terminal.broker.market.figures(account);
  return new ResultFields()
    .integer('login', Number(account.record.login))
    .text('server', account.server.name)
    .text('company', account.server.broker)
    .text('currency', 'USD')
    .integer('leverage', account.record.leverage)
    .decimal('balance', figures.balance)
    .decimal('equity', figures.equity)
    .decimal('margin', figures.margin)
    .decimal('free_margin', figures.freeMargin)
    .decimal('margin_level', figures.margin > 0 ? figures.marginLevel : 0)
    .decimal('profit', figures.profit)
    .text('margin_mode', account.record.platform === 'mt4' ? 'hedging' : account.record.marginMode)
    .integer('trade_allowed', terminal.broker.tradeAllowed(account) ? 1 : 0)
    .integer('server_time', serverTimeSeconds(terminal))
    .answer();
}

/** MT5 `SYMBOL_FILLING_MODE`: broker-sim fills market orders whole or not at all, and allows IOC too. */
const fillingFlagsMt5 = 1 | 2;

export async function symbolCommand(terminal: TerminalAccount, args: RequestArguments): Promise<Answer> {
  const problem = args.problem('symbol:t!');
  if (problem) return problem;
  const account = await terminal.state();
  const spec = findSymbol(account.server, args.text('symbol'));
  if (!spec) return refusal('bad_request', `unknown symbol ${args.text('symbol')}`);
  const { bid, ask } = terminal.broker.prices.quote(spec);
  const digits = spec.instrument.digits;
  const tradeAllowed = terminal.broker.tradeAllowed(account);
  const mt5 = account.record.platform === 'mt5';
  return new ResultFields()
    .text('symbol', spec.name)
    .integer('digits', digits)
    .decimal('point', spec.point)
    .decimal('tick_size', spec.point)
    .decimal('tick_value', tickValue(spec, bid))
    .decimal('contract_size', spec.instrument.contractSize)
    .decimal('volume_min', spec.volumeMin)
    .decimal('volume_max', spec.volumeMax)
    .decimal('volume_step', spec.volumeStep)
    .integer('trade_mode', tradeAllowed ? 4 : 0)
    .integer('stops_level', spec.stopsLevel)
    .integer('freeze_level', 0)
    .price('bid', bid, digits)
    .price('ask', ask, digits)
    .integer('time', serverTimeSeconds(terminal))
    .integer('filling_mode', mt5 ? fillingFlagsMt5 : 0)
    .answer();
}

/** The account-currency value of one tick of one lot. */
function tickValue(spec: SymbolSpec, bid: number): number {
  const perLot = spec.point * spec.instrument.contractSize;
  return Number((spec.instrument.quoteIsAccountCurrency ? perLot : perLot / bid).toFixed(8));
}

export function positionFields(terminal: TerminalAccount, account: AccountState, position: Position): ResultFields {
  const digits = digitsOf(account, position.symbol);
  const valued = terminal.broker.market.valuePosition(account, position);
  const fields = new ResultFields()
    .integer('ticket', position.ticket)
    .text('symbol', position.symbol)
    .integer('type', position.type)
    .decimal('volume', position.volume)
    .price('price_open', position.priceOpen, digits)
    .price('price_current', valued.currentPrice, digits)
    .price('sl', position.sl, digits)
    .price('tp', position.tp, digits)
    .decimal('profit', valued.profit)
    .decimal('swap', valued.swap)
    .integer('magic', position.magic)
    .text('comment', position.comment)
    .integer('time', Math.floor(position.openedAtMs / 1000));
  return account.record.platform === 'mt5' ? fields.integer('identifier', position.ticket) : fields.decimal('commission', 0);
}

export function orderFields(terminal: TerminalAccount, account: AccountState, order: PendingOrder): ResultFields {
  const digits = digitsOf(account, order.symbol);
  const expiration = Math.floor(order.expirationMs / 1000);
  const fields = new ResultFields()
    .integer('ticket', order.ticket)
    .text('symbol', order.symbol)
    .integer('type', order.type)
    .decimal('volume', order.volume)
    .price('price_open', order.price, digits)
    .price('price_current', terminal.broker.market.triggerPrice(account, order), digits)
    .price('sl', order.sl, digits)
    .price('tp', order.tp, digits)
    .integer('magic', order.magic)
    .text('comment', order.comment)
    .integer('time_setup', Math.floor(order.placedAtMs / 1000))
    .integer('expiration', expiration);
  if (account.record.platform === 'mt4') return fields;
  // ORDER_TIME_GTC (0) or ORDER_TIME_SPECIFIED (2).
  return fields
    .price('price_stoplimit', order.stopLimitPrice, digits)
    .decimal('volume_initial', order.volume)
    .integer('type_time', expiration > 0 ? 2 : 0);
}

/** The first 500 by ticket, so a cut list is the same cut on every call. */
function firstByTicket<T extends { ticket: number; symbol: string }>(items: Iterable<T>, filter: string): { items: T[]; more: boolean } {
  const matching = [...items].filter((item) => filter === '' || item.symbol === filter).sort((a, b) => a.ticket - b.ticket);
  return { items: matching.slice(0, maxListItems), more: matching.length > maxListItems };
}

export async function positionsCommand(terminal: TerminalAccount, args: RequestArguments): Promise<Answer> {
  const problem = args.problem('symbol:t');
  if (problem) return problem;
  const account = await terminal.state();
  const { items, more } = firstByTicket(account.positions.values(), args.text('symbol'));
  const list = items.map((position) => positionFields(terminal, account, position));
  return new ResultFields().list('positions', list, more).answer();
}

export async function ordersCommand(terminal: TerminalAccount, args: RequestArguments): Promise<Answer> {
  const problem = args.problem('symbol:t');
  if (problem) return problem;
  const account = await terminal.state();
  const { items, more } = firstByTicket(account.orders.values(), args.text('symbol'));
  const list = items.map((order) => orderFields(terminal, account, order));
  return new ResultFields().list('orders', list, more).answer();
}

export function notFound(ticket: string): Answer {
  return refusal('not_found', `ticket ${ticket} is neither an open position nor a pending order`);
}

export async function ticketCommand(terminal: TerminalAccount, args: RequestArguments): Promise<Answer> {
  const problem = args.problem('ticket:i!');
  if (problem) return problem;
  const account = await terminal.state();
  const ticket = args.integer('ticket');
  const position = account.positions.get(ticket);
  if (position) return answerWithKind('position', positionFields(terminal, account, position));
  const order = account.orders.get(ticket);
  if (order) return answerWithKind('order', orderFields(terminal, account, order));
  return notFound(args.text('ticket'));
}

function answerWithKind(kind: string, fields: ResultFields): Answer {
  return { ok: [['kind', kind], ...fields.entries] };
}

/** `check`: the margin an order would take and whether the free margin covers it; nothing is sent. */
export async function checkCommand(terminal: TerminalAccount, args: RequestArguments): Promise<Answer> {
  const account = await terminal.state();
  const mt4 = account.record.platform === 'mt4';
  const problem = args.problem(mt4 ? 'symbol:t!,op:i!,volume:d!' : 'symbol:t!,type:i!,volume:d!,price:d');
  if (problem) return problem;
  const type = args.integer(mt4 ? 'op' : 'type');
  if (type < 0 || type > (mt4 ? 1 : 7)) return refusal('bad_request', mt4 ? 'op must be 0 or 1' : 'type must be 0-7');
  const spec = findSymbol(account.server, args.text('symbol'));
  if (!spec) return refusal('bad_request', `unknown symbol ${args.text('symbol')}`);
  const buy = type % 2 === 0;
  const quote = terminal.broker.prices.quote(spec);
  const price = args.decimal('price', buy ? quote.ask : quote.bid);
  const volume = args.decimal('volume');
  const margin = Math.round(marginFor(spec, volume, price, account.record.leverage) * 100) / 100;
  const figures = terminal.broker.market.figures(account);
  const marginFree = Math.round((figures.freeMargin - margin) * 100) / 100;
  if (mt4)
    return new ResultFields()
      .decimal('margin', margin)
      .decimal('margin_free', marginFree)
      .integer('error', marginFree < 0 ? 134 : 0)
      .answer();
  const marginAfter = figures.margin + margin;
  return new ResultFields()
    .decimal('margin', margin)
    .integer('retcode', marginFree < 0 ? 10019 : 0)
    .decimal('balance', figures.balance)
    .decimal('equity', figures.equity)
    .decimal('profit', figures.profit)
    .decimal('margin_free', marginFree)
    .decimal('margin_level', marginAfter > 0 ? Math.round((figures.equity / marginAfter) * 10_000) / 100 : 0)
    .text('comment', marginFree < 0 ? 'No money' : 'Done')
    .answer();
}
