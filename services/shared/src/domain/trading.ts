/**
 * Trading vocabulary shared by execution, the connectors and broker-sim: MT5 trade result codes (the names
 * every API answer uses on both platforms), the mapping of MT4 error numbers onto them, order operations,
 * the symbol `base` match of docs/architecture.md ("API rules") and volume-step arithmetic.
 */

/** MT5 TRADE_RETCODE_* values. */
export const retcode = {
  REQUOTE: 10004,
  REJECT: 10006,
  CANCEL: 10007,
  PLACED: 10008,
  DONE: 10009,
  DONE_PARTIAL: 10010,
  ERROR: 10011,
  TIMEOUT: 10012,
  INVALID: 10013,
  INVALID_VOLUME: 10014,
  INVALID_PRICE: 10015,
  INVALID_STOPS: 10016,
  TRADE_DISABLED: 10017,
  MARKET_CLOSED: 10018,
  NO_MONEY: 10019,
  PRICE_CHANGED: 10020,
  PRICE_OFF: 10021,
  INVALID_EXPIRATION: 10022,
  ORDER_CHANGED: 10023,
  TOO_MANY_REQUESTS: 10024,
  NO_CHANGES: 10025,
  SERVER_DISABLES_AT: 10026,
  CLIENT_DISABLES_AT: 10027,
  LOCKED: 10028,
  FROZEN: 10029,
  INVALID_FILL: 10030,
  CONNECTION: 10031,
  ONLY_REAL: 10032,
  LIMIT_ORDERS: 10033,
  LIMIT_VOLUME: 10034,
  INVALID_ORDER: 10035,
  POSITION_CLOSED: 10036,
  INVALID_CLOSE_VOLUME: 10038,
  CLOSE_ORDER_EXIST: 10039,
  LIMIT_POSITIONS: 10040,
  REJECT_CANCEL: 10041,
  LONG_ONLY: 10042,
  SHORT_ONLY: 10043,
  CLOSE_ONLY: 10044,
  FIFO_CLOSE: 10045,
  HEDGE_PROHIBITED: 10046,
} as const;

export type RetcodeName = keyof typeof retcode;

const retcodeNames = new Map<number, string>(Object.entries(retcode).map(([name, value]) => [value, `TRADE_RETCODE_${name}`]));

/** `TRADE_RETCODE_<NAME>` for a known code, `TRADE_RETCODE_UNKNOWN_<n>` otherwise (never empty). */
export function retcodeDescription(code: number): string {
  return retcodeNames.get(code) ?? `TRADE_RETCODE_UNKNOWN_${code}`;
}

/** Codes that mean the request executed (a deal was made or a pending order accepted). */
export function isSuccessRetcode(code: number): boolean {
  return code === retcode.DONE || code === retcode.PLACED || code === retcode.DONE_PARTIAL;
}

export const operations = ['buy', 'sell', 'buyLimit', 'sellLimit', 'buyStop', 'sellStop', 'buyStopLimit', 'sellStopLimit'] as const;
export type Operation = (typeof operations)[number];

const operationByLowerCase = new Map<string, Operation>(operations.map((operation) => [operation.toLowerCase(), operation]));

/** The canonical spelling of an operation given in any case (`BUYLIMIT` → `buyLimit`), or undefined. */
export function normalizeOperation(value: string): Operation | undefined {
  return operationByLowerCase.get(value.toLowerCase());
}

export function isPendingOperation(operation: Operation): boolean {
  return operation !== 'buy' && operation !== 'sell';
}

export function isStopLimitOperation(operation: Operation): boolean {
  return operation === 'buyStopLimit' || operation === 'sellStopLimit';
}

export function isBuyOperation(operation: Operation): boolean {
  return operation.startsWith('buy');
}

/** MT5 ORDER_TYPE_* number of an operation; MT4 uses the same numbers for its six (OP_BUY … OP_SELLSTOP). */
export const orderTypeNumber: Record<Operation, number> = {
  buy: 0,
  sell: 1,
  buyLimit: 2,
  sellLimit: 3,
  buyStop: 4,
  sellStop: 5,
  buyStopLimit: 6,
  sellStopLimit: 7,
};

/** Names of order types as the platforms' documentation spells them in lower case (ticket `type`). */
export const orderTypeNames = [
  'buy',
  'sell',
  'buy_limit',
  'sell_limit',
  'buy_stop',
  'sell_stop',
  'buy_stop_limit',
  'sell_stop_limit',
] as const;

export function orderTypeName(type: number): string {
  return orderTypeNames[type] ?? `type_${type}`;
}

/** Whether an order type number is a buy (long) type. */
export function isBuyType(type: number): boolean {
  return type % 2 === 0;
}

/** Separators that may lead a broker suffix in a `base` match. */
export const symbolSuffixSeparators = ['.', '-', '_', '#', '!', '+'] as const;

function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const baseMatchers = new Map<string, RegExp>();

/** What a `base` match needs to know of the account's broker: its symbol names and the account's own suffix. */
export interface BrokerSymbols {
  /** Suffix of the account's symbol class ("" for none), e.g. `.xx`, `m`, `-ecn`. */
  suffix: string;
  /** Every symbol the broker lists, lower-cased. */
  namesLowerCase: ReadonlySet<string>;
}

const brokerSymbolsOf = new WeakMap<object, BrokerSymbols>();

/** The BrokerSymbols of a server description, built once per description object. */
export function brokerSymbols(server: { symbol_suffix: string; symbols: readonly string[] }): BrokerSymbols {
  let known = brokerSymbolsOf.get(server);
  if (!known) {
    known = { suffix: server.symbol_suffix, namesLowerCase: new Set(server.symbols.map((name) => name.toLowerCase())) };
    brokerSymbolsOf.set(server, known);
  }
  return known;
}

function baseMatcher(base: string): RegExp {
  let matcher = baseMatchers.get(base);
  if (!matcher) {
    // Every separator is escaped inside the class, so `-` can never form a range.
    const separators = symbolSuffixSeparators.map((separator) => `\\${separator}`).join('');
    matcher = new RegExp(`^${escapeRegExp(base)}(?:[${separators}][A-Za-z0-9]+|[A-Za-z0-9]{1,2})?$`, 'i');
    if (baseMatchers.size > 10_000) baseMatchers.clear();
    baseMatchers.set(base, matcher);
  }
  return matcher;
}

/**
 * How a symbol matches (docs/architecture.md, "API rules"). `exact` compares the whole name case-sensitively, as the
 * broker names the symbol. `base` takes the base `B` (case-insensitively) followed by nothing, by a separator and
 * alphanumerics (EURUSD.xx, EURUSD-ecn) or by one or two alphanumerics (EURUSDm), and only when `B` itself names a
 * symbol on the broker: `B` or `B` + the account's suffix is in its symbol list. Without that second rule, `EURUS`
 * would take `SD` as a suffix and close EURUSD; with it, a shorter prefix never matches a longer name. `*` matches
 * every symbol.
 */
export function symbolMatches(candidate: string, wanted: string, mode: 'exact' | 'base', broker: BrokerSymbols): boolean {
  if (wanted === '*') return true;
  if (mode === 'exact') return candidate === wanted;
  const baseLowerCase = wanted.toLowerCase();
  if (!broker.namesLowerCase.has(baseLowerCase) && !broker.namesLowerCase.has(baseLowerCase + broker.suffix.toLowerCase())) return false;
  return baseMatcher(wanted).test(candidate);
}

/** Number of decimals of a volume step (0.01 → 2), for rounding without binary-fraction noise. */
export function stepDecimals(step: number): number {
  const text = step.toString();
  if (text.includes('e-')) return Number(text.split('e-')[1]);
  const dot = text.indexOf('.');
  return dot < 0 ? 0 : text.length - dot - 1;
}

/** Rounds a volume DOWN to a multiple of the step (0.37 with step 0.1 → 0.3), tolerating float noise. */
export function roundVolumeDown(volume: number, step: number): number {
  if (step <= 0) return volume;
  const steps = Math.floor(volume / step + 1e-9);
  return Number((steps * step).toFixed(stepDecimals(step)));
}

/** Whether a volume is a whole multiple of the step. */
export function isVolumeOnStep(volume: number, step: number): boolean {
  return Math.abs(roundVolumeDown(volume, step) - volume) < step * 1e-6;
}

/** An ISO 8601 expiration as the unix seconds both platforms take; 0 (no expiration) when absent or unreadable. */
export function expirationSeconds(expiration: string | undefined): number {
  if (!expiration) return 0;
  const milliseconds = Date.parse(expiration);
  return Number.isFinite(milliseconds) ? Math.floor(milliseconds / 1000) : 0;
}
