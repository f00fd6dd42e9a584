import { findSymbol } from '../domain/catalog';
import type { AccountState, TradeOutcome } from '../domain/engine';
import { mt4Result, mt5Result } from '../handlers/renderers';
import { type Answer, refusal, type RequestArguments, ResultFields } from './answer';
import { modifyThroughBroker, noChangesMessage, type ModifyRequest } from './modify-operation';
import { digitsOf, notFound } from './read-commands';
import type { TerminalAccount } from './terminal-account';

/**
 * The trade commands (docs/terminal-bridge.md, "send", "close", "delete", "modify"), each one call of a
 * trade function on broker-sim, answered as the reference EAs answer: MT5 `MqlTradeResult` with its retcode
 * (`services/connector-mt5/terminal/MtxBridgeTrades.mqh`), MT4 the raw error number, which the connector maps.
 * Every check that answers an error comes before the trade call, so an error answer means nothing was sent.
 */

const actionDeal = 1;
const actionPending = 5;
const actionSltp = 6;
const actionModify = 7;
const actionRemove = 8;
const retcodeNoChanges = 10025;
const retcodeInvalid = 10013;
const mt4ErrorNoResult = 1;

function noChanges(outcome: TradeOutcome): boolean {
  return !outcome.ok && outcome.error === 'invalid_request' && outcome.message === noChangesMessage;
}

/** MqlTradeResult as the MT5 EA writes it, prices with the symbol's digits. */
function mt5Answer(
  terminal: TerminalAccount,
  account: AccountState,
  symbol: string,
  outcome: TradeOutcome,
  pendingPlaced: boolean,
): Answer {
  const rendered = mt5Result(outcome, pendingPlaced);
  const digits = digitsOf(account, symbol);
  return new ResultFields()
    .integer('retcode', noChanges(outcome) ? retcodeNoChanges : rendered.retcode)
    .integer('deal', rendered.deal)
    .integer('order', rendered.order)
    .decimal('volume', rendered.volume)
    .price('price', rendered.price, digits)
    .price('bid', rendered.bid, digits)
    .price('ask', rendered.ask, digits)
    .text('comment', outcome.ok ? 'Request executed' : rendered.comment)
    .integer('request_id', terminal.nextRequestId())
    .integer('retcode_external', 0)
    .answer();
}

/**
 * MT4: `error` (0 or the raw MT4 error number) and `ticket`: what `OrderSend` returned (-1 on failure), or the
 * ticket `OrderClose`, `OrderDelete` and `OrderModify` were given.
 */
function mt4Answer(outcome: TradeOutcome, ticket: number): ResultFields {
  const error = noChanges(outcome) ? mt4ErrorNoResult : mt4Result(outcome).error;
  return new ResultFields().integer('error', error).integer('ticket', ticket);
}

export async function sendCommand(terminal: TerminalAccount, args: RequestArguments): Promise<Answer> {
  const account = await terminal.state();
  return account.record.platform === 'mt5' ? sendMt5(terminal, account, args) : sendMt4(terminal, account, args);
}

async function sendMt5(terminal: TerminalAccount, account: AccountState, args: RequestArguments): Promise<Answer> {
  const problem = args.problem(
    'action:i!,type:i,symbol:t,volume:d,price:d,stoplimit:d,sl:d,tp:d,deviation:i,type_filling:i,type_time:i,expiration:i,comment:t,magic:i,order:i,position:i,position_by:i',
  );
  if (problem) return problem;
  const symbol = args.text('symbol');
  if (symbol !== '' && !findSymbol(account.server, symbol)) return refusal('bad_request', `unknown symbol ${symbol}`);
  const action = args.integer('action');
  const type = args.integer('type');
  const price = args.decimal('price');
  const call = await terminal.tradeCall(args.text('comment'), args.integer('magic'));
  const broker = terminal.broker;
  if (action === actionRemove) {
    const { record } = await broker.deleteOrder(call, args.integer('order'));
    return mt5Answer(terminal, account, symbol || record.symbol, record.outcome!, false);
  }
  if (action === actionDeal && args.integer('position') > 0) {
    const deviation = price > 0 ? args.integer('deviation') : undefined;
    const { record } = await broker.closePosition(call, args.integer('position'), args.decimal('volume'), price, deviation);
    return mt5Answer(terminal, account, symbol || record.symbol, record.outcome!, false);
  }
  if (action === actionSltp || action === actionModify) {
    const ticket = action === actionSltp ? args.integer('position') : args.integer('order');
    const { record } = await modifyThroughBroker(broker, call, {
      ticket,
      sl: args.decimal('sl'),
      tp: args.decimal('tp'),
      price,
      stopLimitPrice: args.decimal('stoplimit'),
      expirationMs: args.integer('expiration') * 1000,
    });
    return mt5Answer(terminal, account, symbol || record.symbol, record.outcome!, false);
  }
  if ((action === actionDeal && type >= 0 && type <= 1) || (action === actionPending && type >= 2 && type <= 7)) {
    const { record } = await broker.openOrder(call, {
      clientId: call.clientId,
      symbol,
      type,
      volume: args.decimal('volume'),
      price,
      stopLimitPrice: args.decimal('stoplimit'),
      sl: args.decimal('sl'),
      tp: args.decimal('tp'),
      deviationPoints: price > 0 && type <= 1 ? args.integer('deviation') : undefined,
      magic: args.integer('magic'),
      comment: args.text('comment'),
      expirationMs: args.integer('expiration') * 1000,
    });
    return mt5Answer(terminal, account, symbol, record.outcome!, record.kind === 'pending');
  }
  // The terminal itself rejects what the server cannot take: OrderSend was called, and answers TRADE_RETCODE_INVALID.
  return new ResultFields()
    .integer('retcode', retcodeInvalid)
    .integer('deal', 0)
    .integer('order', 0)
    .decimal('volume', 0)
    .decimal('price', 0)
    .decimal('bid', 0)
    .decimal('ask', 0)
    .text('comment', 'Invalid request')
    .integer('request_id', terminal.nextRequestId())
    .integer('retcode_external', 0)
    .answer();
}

async function sendMt4(terminal: TerminalAccount, account: AccountState, args: RequestArguments): Promise<Answer> {
  const problem = args.problem('symbol:t!,op:i!,volume:d!,price:d,slippage:i,stoploss:d,takeprofit:d,comment:t,magic:i,expiration:i');
  if (problem) return problem;
  const symbol = args.text('symbol');
  const spec = findSymbol(account.server, symbol);
  if (!spec) return refusal('bad_request', `unknown symbol ${symbol}`);
  const cmd = args.integer('op');
  if (cmd < 0 || cmd > 5) return refusal('bad_request', 'op must be 0-5');
  // A market order without a price takes the current Ask or Bid, as the EA does after RefreshRates().
  const quote = terminal.broker.prices.quote(spec);
  const price = args.decimal('price') || (cmd === 0 ? quote.ask : cmd === 1 ? quote.bid : 0);
  const call = await terminal.tradeCall(args.text('comment'), args.integer('magic'));
  const { record } = await terminal.broker.openOrder(call, {
    clientId: call.clientId,
    symbol,
    type: cmd,
    volume: args.decimal('volume'),
    price,
    stopLimitPrice: 0,
    sl: args.decimal('stoploss'),
    tp: args.decimal('takeprofit'),
    deviationPoints: cmd <= 1 ? args.integer('slippage') : undefined,
    magic: args.integer('magic'),
    comment: args.text('comment'),
    expirationMs: args.integer('expiration') * 1000,
  });
  const outcome = record.outcome!;
  const fields = mt4Answer(outcome, outcome.ok ? outcome.order : -1);
  if (!outcome.ok) return fields.answer();
  const digits = spec.instrument.digits;
  return fields
    .price('price', outcome.price, digits)
    .decimal('volume', outcome.volume)
    .price('bid', outcome.bid, digits)
    .price('ask', outcome.ask, digits)
    .answer();
}

export async function closeCommand(terminal: TerminalAccount, args: RequestArguments): Promise<Answer> {
  const account = await terminal.state();
  const mt5 = account.record.platform === 'mt5';
  const problem = args.problem(
    mt5 ? 'ticket:i!,volume:d,price:d,deviation:i,type_filling:i,comment:t' : 'ticket:i!,volume:d,price:d,slippage:i',
  );
  if (problem) return problem;
  const ticket = args.integer('ticket');
  const position = account.positions.get(ticket);
  if (!position) {
    if (account.orders.has(ticket)) return refusal('bad_request', `ticket ${ticket} is a pending order, which delete removes`);
    return notFound(args.text('ticket'));
  }
  const symbol = position.symbol;
  // Without a price the EA sends the current one: a long position closes at the bid, a short one at the ask.
  const quote = terminal.broker.prices.quote(findSymbol(account.server, symbol)!);
  const price = args.decimal('price') || (position.type === 0 ? quote.bid : quote.ask);
  const deviation = args.integer(mt5 ? 'deviation' : 'slippage');
  // MT4's OrderClose sends no comment; MT5's close carries the connector's comment with the client tag.
  const call = await terminal.tradeCall(mt5 ? args.text('comment') : '', position.magic);
  const { record } = await terminal.broker.closePosition(call, ticket, args.decimal('volume'), price, deviation);
  const outcome = record.outcome!;
  if (mt5) return mt5Answer(terminal, account, symbol, outcome, false);
  const fields = mt4Answer(outcome, ticket);
  if (!outcome.ok) return fields.answer();
  return fields
    .price('price', outcome.price, digitsOf(account, symbol))
    .decimal('volume', outcome.volume)
    .integer('new_ticket', outcome.newTicket ?? 0)
    .answer();
}

export async function deleteCommand(terminal: TerminalAccount, args: RequestArguments): Promise<Answer> {
  const problem = args.problem('ticket:i!');
  if (problem) return problem;
  const account = await terminal.state();
  const ticket = args.integer('ticket');
  const order = account.orders.get(ticket);
  if (!order) {
    if (account.positions.has(ticket)) return refusal('bad_request', `ticket ${ticket} is an open position, which close closes`);
    return notFound(args.text('ticket'));
  }
  const call = await terminal.tradeCall('');
  const { record } = await terminal.broker.deleteOrder(call, ticket);
  if (account.record.platform === 'mt5') return mt5Answer(terminal, account, order.symbol, record.outcome!, false);
  return mt4Answer(record.outcome!, ticket).answer();
}

export async function modifyCommand(terminal: TerminalAccount, args: RequestArguments): Promise<Answer> {
  const account = await terminal.state();
  const mt5 = account.record.platform === 'mt5';
  const problem = args.problem(
    mt5 ? 'ticket:i!,sl:d,tp:d,price:d,stoplimit:d,type_time:i,expiration:i' : 'ticket:i!,sl:d,tp:d,price:d,expiration:i',
  );
  if (problem) return problem;
  const ticket = args.integer('ticket');
  const position = account.positions.get(ticket);
  const order = account.orders.get(ticket);
  if (!position && !order) return notFound(args.text('ticket'));
  // An absent argument keeps the current value, so the request always carries the full set.
  const request: ModifyRequest = position
    ? { ticket, sl: args.decimal('sl', position.sl), tp: args.decimal('tp', position.tp), price: 0, stopLimitPrice: 0, expirationMs: 0 }
    : {
        ticket,
        sl: args.decimal('sl', order!.sl),
        tp: args.decimal('tp', order!.tp),
        price: args.decimal('price', order!.price),
        stopLimitPrice: mt5 ? args.decimal('stoplimit', order!.stopLimitPrice) : order!.stopLimitPrice,
        expirationMs: args.has('expiration') ? args.integer('expiration') * 1000 : order!.expirationMs,
      };
  const symbol = (position ?? order)!.symbol;
  const call = await terminal.tradeCall('');
  const { record } = await modifyThroughBroker(terminal.broker, call, request);
  if (mt5) return mt5Answer(terminal, account, symbol, record.outcome!, false);
  return mt4Answer(record.outcome!, ticket).answer();
}
