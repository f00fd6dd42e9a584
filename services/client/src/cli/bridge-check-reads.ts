/**
 * `bridge:check`'s reads: every command of docs/terminal-bridge.md that changes nothing (`symbols` included), each answer checked for
 * its fields and their meaning, plus the errors the document requires (an unknown symbol, an unknown ticket,
 * an unknown command, MT4's `kind=deals`).
 */
import { randomUUID } from 'node:crypto';
import { clientTag } from '@mtx/connector-runtime/bridge/client-tag';
import { AnswerFields, CheckFailure, checkMore, checkOrder, checkPosition, expectAnswerError } from './bridge-check-answers';
import { type CheckRun, needs } from './bridge-check-steps';

export type Platform = 'mt4' | 'mt5';

/** The terminal that said hello: what its answers must agree with. */
export interface TerminalIdentity {
  platform: Platform;
  login: number;
  server: string;
}

export interface SymbolInfo {
  name: string;
  digits: number;
  point: number;
  volumeMin: number;
  volumeMax: number;
  volumeStep: number;
  stopsLevel: number;
  freezeLevel: number;
  bid: number;
  ask: number;
}

export interface ReadOutcome {
  /** The trade server's clock from `account`: history ranges are in server time. */
  serverTime?: number;
  tradeAllowed?: boolean;
  symbol?: SymbolInfo;
}

/** A ticket no account has: `ticket` must answer it `not_found`. */
const absentTicket = 9_007_199_254_740_000;
const dayS = 86_400;

export async function runReads(run: CheckRun, terminal: TerminalIdentity, symbolName: string): Promise<ReadOutcome> {
  const { platform } = terminal;
  const account = await run.step('account', async (call) => {
    const answer = AnswerFields.ok('account', await call('account', {}));
    answer.equals('login', terminal.login);
    answer.equals('server', terminal.server);
    answer.text('company');
    const currency = answer.text('currency', 16);
    const leverage = answer.integer('leverage', { min: 0 });
    const balance = answer.decimal('balance');
    for (const key of ['equity', 'margin', 'free_margin', 'profit']) answer.decimal(key);
    answer.decimal('margin_level', { min: 0 });
    const marginMode = answer.oneOf('margin_mode', ['hedging', 'netting', 'exchange']);
    if (platform === 'mt4' && marginMode !== 'hedging') throw new CheckFailure('account: margin_mode on MT4 is always hedging');
    const tradeAllowed = answer.boolean('trade_allowed');
    const serverTime = answer.integer('server_time', { min: 1 });
    return {
      detail: `${currency} balance ${balance}, 1:${leverage}, ${marginMode}, trade_allowed=${tradeAllowed ? 1 : 0}`,
      value: { serverTime, tradeAllowed },
    };
  });

  const symbol = await run.step('symbol', async (call) => {
    const answer = AnswerFields.ok('symbol', await call('symbol', { symbol: symbolName }));
    answer.equals('symbol', symbolName);
    const info: SymbolInfo = {
      name: symbolName,
      digits: answer.integer('digits', { min: 0, max: 10 }),
      point: answer.decimal('point', { min: Number.MIN_VALUE }),
      volumeMin: answer.decimal('volume_min', { min: Number.MIN_VALUE }),
      volumeMax: answer.decimal('volume_max', { min: Number.MIN_VALUE }),
      volumeStep: answer.decimal('volume_step', { min: Number.MIN_VALUE }),
      stopsLevel: answer.integer('stops_level', { min: 0 }),
      freezeLevel: answer.integer('freeze_level', { min: 0 }),
      bid: answer.decimal('bid', { min: 0 }),
      ask: answer.decimal('ask', { min: 0 }),
    };
    for (const key of ['tick_size', 'tick_value', 'contract_size']) answer.decimal(key, { min: 0 });
    answer.integer('trade_mode', { min: 0 });
    answer.integer('time', { min: 0 });
    answer.integer('filling_mode', { min: 0 });
    if (info.volumeMax < info.volumeMin) throw new CheckFailure(`symbol: volume_max ${info.volumeMax} < volume_min ${info.volumeMin}`);
    if (info.ask < info.bid) throw new CheckFailure(`symbol: ask ${info.ask} < bid ${info.bid}`);
    return {
      detail: `${info.digits} digits, volume ${info.volumeMin}..${info.volumeMax} step ${info.volumeStep}, bid ${info.bid} ask ${info.ask}`,
      value: info,
    };
  });

  await run.step('symbol (unknown)', async (call) => ({
    detail: expectAnswerError('symbol', await call('symbol', { symbol: 'MTXNOSUCHSYMBOL' }), 'bad_request'),
    value: undefined,
  }));

  await run.step('symbols', async (call) => {
    // The symbol named by --symbol must be among the names its own first letters select, in any case.
    const prefix = symbolName.slice(0, 3).toLowerCase();
    const answer = AnswerFields.ok('symbols', await call('symbols', { prefix }));
    const names = answer.list('symbols').map((item) => item.text('name', 64));
    const more = checkMore(answer, names.length);
    const stray = names.find((name) => !name.toLowerCase().startsWith(prefix));
    if (stray !== undefined) throw new CheckFailure(`symbols: ${stray} does not start with the prefix ${prefix}`);
    if (!more && !names.includes(symbolName))
      throw new CheckFailure(`symbols: ${symbolName} is missing from the names starting with ${prefix}`);
    return { detail: `${names.length} symbols starting with ${prefix}${more ? ', more=1' : ''}`, value: undefined };
  });

  for (const kind of ['positions', 'orders'] as const) {
    await run.step(kind, async (call) => {
      const answer = AnswerFields.ok(kind, await call(kind, {}));
      const items = answer.list(kind);
      for (const item of items) (kind === 'positions' ? checkPosition : checkOrder)(item, platform);
      const more = checkMore(answer, items.length);
      return { detail: `${items.length} ${kind}${more ? ', more=1' : ''}`, value: undefined };
    });
  }

  await run.step('ticket (unknown)', async (call) => ({
    detail: expectAnswerError('ticket', await call('ticket', { ticket: absentTicket }), 'not_found'),
    value: undefined,
  }));

  await run.step('check', async (call) => {
    const info = needs(symbol, 'symbol');
    const args: Record<string, string | number> =
      platform === 'mt5' ? { symbol: info.name, type: 0, volume: info.volumeMin } : { symbol: info.name, op: 0, volume: info.volumeMin };
    const answer = AnswerFields.ok('check', await call('check', args));
    const margin = answer.decimal('margin', { min: 0 });
    const marginFree = answer.decimal('margin_free');
    if (platform === 'mt5') {
      const retcode = answer.integer('retcode', { min: 0 });
      for (const key of ['balance', 'equity', 'profit', 'margin_level']) answer.decimal(key);
      answer.text('comment');
      return { detail: `margin ${margin} for ${info.volumeMin} lots, retcode ${retcode}, free after ${marginFree}`, value: undefined };
    }
    const error = answer.integer('error', { min: 0 });
    if (marginFree < 0 && error !== 134) throw new CheckFailure(`check: margin_free ${marginFree} < 0 needs error=134, not ${error}`);
    return { detail: `margin ${margin} for ${info.volumeMin} lots, error ${error}, free after ${marginFree}`, value: undefined };
  });

  const serverTime = account?.serverTime;
  for (const kind of ['deals', 'orders'] as const) {
    await run.step(`history ${kind}`, async (call) => {
      const now = needs(serverTime, 'account');
      const args = { kind, from: now - 7 * dayS, to: now + 60, limit: 50 };
      if (platform === 'mt4' && kind === 'deals')
        return { detail: expectAnswerError('history kind=deals on MT4', await call('history', args), 'bad_request'), value: undefined };
      const answer = AnswerFields.ok('history', await call('history', args));
      const items = answer.list(kind);
      const total = answer.integer('total', { min: items.length });
      const more = answer.boolean('more');
      if (more !== items.length < total) throw new CheckFailure(`history: more=${more ? 1 : 0} with ${items.length} of ${total}`);
      for (const item of items) item.integer('ticket', { min: 1 });
      return { detail: `${items.length} of ${total} ${kind} in the last 7 days`, value: undefined };
    });
  }

  await run.step('find', async (call) => {
    const now = needs(serverTime, 'account');
    const answer = AnswerFields.ok('find', await call('find', { tags: clientTag(`bridge-check-${randomUUID()}`), from: now - dayS }));
    const matches = answer.list('matches');
    checkMore(answer, matches.length);
    if (matches.length > 0) throw new CheckFailure(`find: ${matches.length} matches for a tag nothing carries`);
    return { detail: 'no match for a fresh tag, as required', value: undefined };
  });

  await run.step('unknown command', async (call) => ({
    detail: expectAnswerError('quote', await call('quote', { symbol: symbolName }), 'unsupported'),
    value: undefined,
  }));

  return { serverTime, tradeAllowed: account?.tradeAllowed, symbol };
}
