/**
 * `bridge:check --trade`: one small buy of the symbol traded through every trade command of
 * docs/terminal-bridge.md (open, modify stops, partial close, close), then `history` and `find` must show what
 * was done. MT5 answers retcodes, MT4 its own error numbers (docs/terminal-bridge.md, "MT4 errors and MT5
 * retcodes"). Whatever fails, a position left open by the check is closed before it ends.
 */
import { randomUUID } from 'node:crypto';
import { clientTag, tradeComment } from '@mtx/connector-runtime/bridge/client-tag';
import { AnswerFields, CheckFailure, checkPosition, expectAnswerError } from './bridge-check-answers';
import type { ReadOutcome, SymbolInfo, TerminalIdentity } from './bridge-check-reads';
import { type CheckRun, needs, StepSkipped, type TerminalCaller } from './bridge-check-steps';

const retcodeDone = 10009;
const slippagePoints = 20;
const volumeEpsilon = 1e-9;

interface OpenedPosition {
  /** The ticket the position has now (MT4 re-tickets the rest of a partial close). */
  ticket: number;
  firstTicket: number;
  volume: number;
  partialClosed: boolean;
}

/** The trade function's own outcome: MT5 `retcode=10009`, MT4 `error=0`; anything else fails the row. */
export function expectDone(command: string, answer: AnswerFields, platform: 'mt4' | 'mt5'): void {
  if (platform === 'mt5') {
    const retcode = answer.integer('retcode', { min: 0 });
    if (retcode !== retcodeDone) throw new CheckFailure(`${command}: retcode ${retcode}${retcodeComment(answer)}, expected ${retcodeDone}`);
  } else {
    const error = answer.integer('error', { min: 0 });
    if (error !== 0) throw new CheckFailure(`${command}: MT4 error ${error}, expected 0`);
  }
}

function retcodeComment(answer: AnswerFields): string {
  return answer.has('comment') ? ` (${answer.text('comment')})` : '';
}

export function slippage(platform: 'mt4' | 'mt5'): Record<string, number> {
  return platform === 'mt5' ? { deviation: slippagePoints } : { slippage: slippagePoints };
}

/** The volume to trade: --volume, else the symbol's minimum; either must be on the symbol's volume grid. */
function tradeVolume(info: SymbolInfo, requested: number | undefined): number {
  const volume = requested ?? info.volumeMin;
  const steps = (volume - info.volumeMin) / info.volumeStep;
  if (volume < info.volumeMin - volumeEpsilon || volume > info.volumeMax + volumeEpsilon || Math.abs(steps - Math.round(steps)) > 1e-6)
    throw new CheckFailure(`volume ${volume} is not ${info.volumeMin}..${info.volumeMax} in steps of ${info.volumeStep}`);
  return volume;
}

export async function runTrades(run: CheckRun, terminal: TerminalIdentity, reads: ReadOutcome, requestedVolume?: number): Promise<void> {
  const { platform } = terminal;
  if (reads.tradeAllowed === false) {
    run.note('open', 'fail', 'trade_allowed=0: allow algorithmic trading in the terminal and on the EA, then run again');
    return;
  }
  const clientId = `bridge-check-${randomUUID()}`;
  const tag = clientTag(clientId);
  const comment = tradeComment('bridge check', clientId);
  const startedAt = reads.serverTime;

  let position = await run.step('open', async (call) => {
    const info = needs(reads.symbol, 'symbol');
    const volume = tradeVolume(info, requestedVolume);
    const args: Record<string, string | number> =
      platform === 'mt5'
        ? { action: 1, type: 0, symbol: info.name, volume, price: info.ask.toFixed(info.digits), magic: 0, comment }
        : { symbol: info.name, op: 0, volume, magic: 0, comment };
    const answer = AnswerFields.ok('send', await call('send', { ...args, ...slippage(platform) }));
    expectDone('send', answer, platform);
    answer.equals('volume', volume);
    const price = answer.decimal('price', { min: Number.MIN_VALUE });
    const ticket = platform === 'mt5' ? await positionOfOrder(call, answer, comment) : answer.integer('ticket', { min: 1 });
    const opened: OpenedPosition = { ticket, firstTicket: ticket, volume, partialClosed: false };
    return { detail: `bought ${volume} ${info.name} at ${price}, position ${ticket}`, value: opened };
  });

  await run.step('modify', async (call) => {
    const opened = needs(position, 'open');
    const info = AnswerFields.ok('symbol', await call('symbol', { symbol: needs(reads.symbol, 'symbol').name }));
    const digits = info.integer('digits', { min: 0 });
    const point = info.decimal('point', { min: Number.MIN_VALUE });
    const bid = info.decimal('bid', { min: Number.MIN_VALUE });
    // A buy's stops are measured from the bid it closes at; twice the larger of the stops and freeze levels
    // plus 100 points keeps both clear of the price while it moves during the check.
    const distance = (2 * Math.max(info.integer('stops_level', { min: 0 }), info.integer('freeze_level', { min: 0 })) + 100) * point;
    const sl = (bid - distance).toFixed(digits);
    const tp = (bid + distance).toFixed(digits);
    const answer = AnswerFields.ok('modify', await call('modify', { ticket: opened.ticket, sl, tp }));
    expectDone('modify', answer, platform);
    const shown = AnswerFields.ok('ticket', await call('ticket', { ticket: opened.ticket }));
    shown.equals('kind', 'position');
    checkPosition(shown, platform);
    shown.equals('sl', Number(sl));
    shown.equals('tp', Number(tp));
    return { detail: `sl ${sl} tp ${tp}, and ticket shows them`, value: undefined };
  });

  const partial = await run.step('close (partial)', async (call) => {
    const opened = needs(position, 'open');
    const info = needs(reads.symbol, 'symbol');
    if (opened.volume < 2 * info.volumeMin - volumeEpsilon)
      throw new StepSkipped(`skipped: ${opened.volume} lots cannot be split; --volume ${2 * info.volumeMin} includes this step`);
    const answer = AnswerFields.ok('close', await call('close', { ticket: opened.ticket, volume: info.volumeMin, ...slippage(platform) }));
    expectDone('close', answer, platform);
    answer.equals('volume', info.volumeMin);
    const rest = Number((opened.volume - info.volumeMin).toFixed(8));
    const ticket = platform === 'mt4' ? answer.integer('new_ticket', { min: 1 }) : opened.ticket;
    const shown = AnswerFields.ok('ticket', await call('ticket', { ticket }));
    shown.equals('volume', rest);
    const retold = platform === 'mt4' ? `, the rest re-ticketed ${ticket}` : '';
    return { detail: `closed ${info.volumeMin}, ${rest} left${retold}`, value: { ...opened, ticket, volume: rest, partialClosed: true } };
  });
  if (partial) position = partial;

  const closed = await run.step('close', async (call) => {
    const opened = needs(position, 'open');
    const answer = AnswerFields.ok('close', await call('close', { ticket: opened.ticket, ...slippage(platform) }));
    expectDone('close', answer, platform);
    answer.equals('volume', opened.volume);
    if (platform === 'mt4') answer.equals('new_ticket', 0);
    expectAnswerError('ticket after close', await call('ticket', { ticket: opened.ticket }), 'not_found');
    return { detail: `closed ${opened.volume}; ticket now answers not_found`, value: true };
  });
  if (position && !closed) await cleanUp(run, position, platform);

  await run.step('history', async (call) => {
    const opened = needs(position, 'open');
    needs(closed, 'close');
    const from = needs(startedAt, 'account') - 60;
    const to = from + 86_400;
    return platform === 'mt5' ? mt5History(call, opened, from, to, tag) : mt4History(call, opened, from, to);
  });

  await run.step('find', async (call) => {
    needs(position, 'open');
    const from = needs(startedAt, 'account') - 60;
    const answer = AnswerFields.ok('find', await call('find', { tags: tag, from }));
    const matches = answer.list('matches');
    if (matches.length === 0) throw new CheckFailure(`find: nothing carries the tag ${tag} the open was sent with`);
    const places = new Set<string>();
    for (const match of matches) {
      match.equals('tag', tag);
      if (!match.text('comment').includes(tag)) throw new CheckFailure(`find: a match's comment does not hold ${tag}`);
      places.add(match.oneOf('where', ['position', 'order', 'deal', 'history_order']));
      match.integer('ticket', { min: 1 });
    }
    const expected = platform === 'mt5' ? 'deal' : 'history_order';
    if (!places.has(expected)) throw new CheckFailure(`find: no ${expected} among ${[...places].join(', ')}`);
    return { detail: `${matches.length} matches by tag (${[...places].sort().join(', ')})`, value: undefined };
  });
}

/** MT5: the position an order opened, found among the open positions by the comment it was sent with. */
export async function positionOfOrder(call: TerminalCaller, sent: AnswerFields, comment: string): Promise<number> {
  const order = sent.integer('order', { min: 1 });
  sent.integer('deal', { min: 1 });
  const positions = AnswerFields.ok('positions', await call('positions', {})).list('positions');
  const match = positions.find((item) => item.text('comment') === comment || item.text('identifier') === String(order));
  if (!match) throw new CheckFailure(`send: order ${order} filled but no open position carries its comment or identifier`);
  return match.integer('ticket', { min: 1 });
}

async function mt5History(call: TerminalCaller, opened: OpenedPosition, from: number, to: number, tag: string) {
  const answer = AnswerFields.ok('history', await call('history', { kind: 'deals', from, to }));
  const deals = answer.list('deals').filter((deal) => deal.text('position') === String(opened.firstTicket));
  const entries = deals.map((deal) => deal.integer('entry', { min: 0, max: 3 }));
  const outs = opened.partialClosed ? 2 : 1;
  if (entries.filter((entry) => entry === 0).length !== 1 || entries.filter((entry) => entry === 1).length !== outs)
    throw new CheckFailure(`history: position ${opened.firstTicket} has entries [${entries.join(',')}], expected one in and ${outs} out`);
  const opening = deals[entries.indexOf(0)]!;
  if (!opening.text('comment').includes(tag)) throw new CheckFailure('history: the opening deal does not carry the comment sent');
  for (const deal of deals) for (const key of ['volume', 'price', 'profit', 'swap', 'commission']) deal.decimal(key);
  return { detail: `${deals.length} deals of position ${opened.firstTicket} (1 in, ${outs} out)`, value: undefined };
}

async function mt4History(call: TerminalCaller, opened: OpenedPosition, from: number, to: number) {
  const answer = AnswerFields.ok('history', await call('history', { kind: 'orders', from, to }));
  const orders = answer.list('orders');
  const tickets = opened.partialClosed ? [opened.firstTicket, opened.ticket] : [opened.firstTicket];
  for (const ticket of tickets) {
    const order = orders.find((item) => item.text('ticket') === String(ticket));
    if (!order) throw new CheckFailure(`history: closed order ${ticket} is not in the history`);
    order.equals('type', '0');
    order.integer('time_close', { min: 1 });
    for (const key of ['volume', 'price_open', 'price_close', 'profit']) order.decimal(key);
  }
  return { detail: `closed orders ${tickets.join(', ')} in the history`, value: undefined };
}

/** A check must not leave a trade open on the operator's account: one close, its outcome a row of its own. */
async function cleanUp(run: CheckRun, position: OpenedPosition, platform: 'mt4' | 'mt5'): Promise<void> {
  await run.step('cleanup', async (call) => {
    const answer = await call('close', { ticket: position.ticket, ...slippage(platform) });
    if (answer.status === 'error' && answer.error === 'not_found')
      return { detail: `position ${position.ticket} is not open`, value: undefined };
    expectDone('close', AnswerFields.ok('close', answer), platform);
    return { detail: `closed position ${position.ticket} the check had opened`, value: undefined };
  });
}
