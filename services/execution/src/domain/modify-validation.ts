import { AppError } from '@mtx/shared/errors';
import { checkExpiration, type CloseFieldsInput, type NormalizedCloseAccount, validateCloseOrders } from './validation';

/**
 * A modify request, all or nothing like a close (docs/architecture.md, "API rules"): the selector is exactly a
 * close's (validateCloseOrders: accounts, defaults, symbol, symbol_match, side, kind, magic or tickets, the same
 * caps), without a close's volume and slippage; the change sets at least one value.
 */

export interface ModifyChangeInput {
  stop_loss?: number | null;
  take_profit?: number | null;
  price?: number | null;
  expiration?: string | null;
}

export interface ModifyOrdersInput {
  defaults?: CloseFieldsInput | null;
  accounts: Array<{ account_id: string; fields?: CloseFieldsInput | null; tickets?: number[] | null; has_tickets?: boolean }>;
  change?: ModifyChangeInput | null;
}

export interface NormalizedChange {
  stop_loss?: number;
  take_profit?: number;
  price?: number;
  /** Unix ms. */
  expiration_unix_ms?: number;
}

const present = <T>(value: T | null | undefined): value is T => value !== undefined && value !== null;
const invalid = (message: string, param: string) => new AppError('invalid_request', message, { param });

function level(value: unknown, param: string, rule: 'zero_removes' | 'positive'): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(`${param} must be a number`, param);
  if (rule === 'positive' && !(value > 0)) throw invalid(`${param} must be greater than 0`, param);
  if (value < 0) throw invalid(`${param} must not be negative (0 removes the stop)`, param);
  return value;
}

export function validateChange(change: ModifyChangeInput | null | undefined, nowMs: number): NormalizedChange {
  const normalized: NormalizedChange = {};
  if (present(change?.stop_loss)) normalized.stop_loss = level(change.stop_loss, 'stop_loss', 'zero_removes');
  if (present(change?.take_profit)) normalized.take_profit = level(change.take_profit, 'take_profit', 'zero_removes');
  if (present(change?.price)) normalized.price = level(change.price, 'price', 'positive');
  if (present(change?.expiration)) normalized.expiration_unix_ms = Date.parse(checkExpiration(change.expiration, 'expiration', nowMs));
  if (Object.keys(normalized).length === 0)
    throw invalid('the request changes nothing: give stop_loss, take_profit, price or expiration', 'stop_loss');
  return normalized;
}

export function validateModifyOrders(
  input: ModifyOrdersInput,
  nowMs: number,
): { accounts: NormalizedCloseAccount[]; change: NormalizedChange } {
  for (const [where, fields] of [
    ['', input.defaults],
    ...input.accounts.map((entry, index) => [`accounts[${index}].`, entry.fields] as const),
  ] as const) {
    for (const name of ['volume', 'slippage'] as const)
      if (present(fields?.[name])) throw invalid(`${where}${name} is a close's field; a modify has none`, `${where}${name}`);
  }
  const change = validateChange(input.change, nowMs);
  const accounts = validateCloseOrders(input);
  const pendingOnly = change.stop_loss === undefined && change.take_profit === undefined;
  if (pendingOnly) {
    // Price and expiration exist only on pending orders; a selector left at positions could match nothing else.
    const positionsOnly = accounts.find((entry) => entry.selector?.kind === 'position');
    if (positionsOnly)
      throw invalid(
        `price and expiration apply to pending orders only, and account ${positionsOnly.account_id} selects positions: set kind to pending`,
        'kind',
      );
  }
  return { accounts, change };
}
