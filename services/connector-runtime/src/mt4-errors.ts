import { retcode } from '@mtx/shared/trading';

/**
 * MT4's error numbers (`GetLastError` after OrderSend/OrderClose/OrderDelete/OrderModify), as the MT4 terminal
 * reports them, and the MT5 retcode each becomes: the product reports results as MT5 retcodes on both platforms,
 * and only the MT4 connector meets MT4's numbers (docs/terminal-bridge.md: the EA passes them through, the
 * connector maps them).
 */
export const mt4Error = {
  NO_ERROR: 0,
  NO_RESULT: 1,
  COMMON_ERROR: 2,
  INVALID_TRADE_PARAMETERS: 3,
  SERVER_BUSY: 4,
  OLD_VERSION: 5,
  NO_CONNECTION: 6,
  NOT_ENOUGH_RIGHTS: 7,
  TOO_FREQUENT_REQUESTS: 8,
  MALFUNCTIONAL_TRADE: 9,
  ACCOUNT_DISABLED: 64,
  INVALID_ACCOUNT: 65,
  TRADE_TIMEOUT: 128,
  INVALID_PRICE: 129,
  INVALID_STOPS: 130,
  INVALID_TRADE_VOLUME: 131,
  MARKET_CLOSED: 132,
  TRADE_DISABLED: 133,
  NOT_ENOUGH_MONEY: 134,
  PRICE_CHANGED: 135,
  OFF_QUOTES: 136,
  BROKER_BUSY: 137,
  REQUOTE: 138,
  ORDER_LOCKED: 139,
  LONG_POSITIONS_ONLY_ALLOWED: 140,
  TOO_MANY_REQUESTS: 141,
  TRADE_MODIFY_DENIED: 145,
  TRADE_CONTEXT_BUSY: 146,
  TRADE_EXPIRATION_DENIED: 147,
  TRADE_TOO_MANY_ORDERS: 148,
  TRADE_HEDGE_PROHIBITED: 149,
  TRADE_PROHIBITED_BY_FIFO: 150,
  INVALID_FUNCTION_PARAMETER_VALUE: 4051,
  UNKNOWN_SYMBOL: 4106,
  INVALID_TICKET: 4108,
  TRADE_NOT_ALLOWED: 4109,
} as const;

const mt4ToRetcode: Record<number, number> = {
  [mt4Error.NO_RESULT]: retcode.ERROR,
  [mt4Error.COMMON_ERROR]: retcode.ERROR,
  [mt4Error.INVALID_TRADE_PARAMETERS]: retcode.INVALID,
  [mt4Error.SERVER_BUSY]: retcode.REJECT,
  [mt4Error.OLD_VERSION]: retcode.REJECT,
  [mt4Error.NO_CONNECTION]: retcode.CONNECTION,
  [mt4Error.NOT_ENOUGH_RIGHTS]: retcode.TRADE_DISABLED,
  [mt4Error.TOO_FREQUENT_REQUESTS]: retcode.TOO_MANY_REQUESTS,
  [mt4Error.MALFUNCTIONAL_TRADE]: retcode.ERROR,
  [mt4Error.ACCOUNT_DISABLED]: retcode.TRADE_DISABLED,
  [mt4Error.INVALID_ACCOUNT]: retcode.INVALID,
  [mt4Error.TRADE_TIMEOUT]: retcode.TIMEOUT,
  [mt4Error.INVALID_PRICE]: retcode.INVALID_PRICE,
  [mt4Error.INVALID_STOPS]: retcode.INVALID_STOPS,
  [mt4Error.INVALID_TRADE_VOLUME]: retcode.INVALID_VOLUME,
  [mt4Error.MARKET_CLOSED]: retcode.MARKET_CLOSED,
  [mt4Error.TRADE_DISABLED]: retcode.TRADE_DISABLED,
  [mt4Error.NOT_ENOUGH_MONEY]: retcode.NO_MONEY,
  [mt4Error.PRICE_CHANGED]: retcode.PRICE_CHANGED,
  [mt4Error.OFF_QUOTES]: retcode.PRICE_OFF,
  [mt4Error.BROKER_BUSY]: retcode.REJECT,
  [mt4Error.REQUOTE]: retcode.REQUOTE,
  [mt4Error.ORDER_LOCKED]: retcode.LOCKED,
  [mt4Error.LONG_POSITIONS_ONLY_ALLOWED]: retcode.LONG_ONLY,
  [mt4Error.TOO_MANY_REQUESTS]: retcode.TOO_MANY_REQUESTS,
  [mt4Error.TRADE_MODIFY_DENIED]: retcode.FROZEN,
  [mt4Error.TRADE_CONTEXT_BUSY]: retcode.LOCKED,
  [mt4Error.TRADE_EXPIRATION_DENIED]: retcode.INVALID_EXPIRATION,
  [mt4Error.TRADE_TOO_MANY_ORDERS]: retcode.LIMIT_ORDERS,
  [mt4Error.TRADE_HEDGE_PROHIBITED]: retcode.HEDGE_PROHIBITED,
  [mt4Error.TRADE_PROHIBITED_BY_FIFO]: retcode.FIFO_CLOSE,
  [mt4Error.INVALID_FUNCTION_PARAMETER_VALUE]: retcode.INVALID,
  [mt4Error.UNKNOWN_SYMBOL]: retcode.INVALID,
  [mt4Error.INVALID_TICKET]: retcode.INVALID,
  [mt4Error.TRADE_NOT_ALLOWED]: retcode.TRADE_DISABLED,
};

const mt4Names = new Map<number, string>(Object.entries(mt4Error).map(([name, value]) => [value, `ERR_${name}`]));

export function mt4ErrorName(error: number): string {
  return mt4Names.get(error) ?? `ERR_${error}`;
}

/**
 * MT4 error number → MT5 retcode. Success (0) is DONE for a deal and PLACED for an accepted pending order;
 * an error number MT4 does not define maps to TRADE_RETCODE_ERROR rather than to a guess.
 */
export function mt4ErrorToRetcode(error: number, pending = false): number {
  if (error === mt4Error.NO_ERROR) return pending ? retcode.PLACED : retcode.DONE;
  return mt4ToRetcode[error] ?? retcode.ERROR;
}
