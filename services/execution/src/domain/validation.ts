import { AppError } from '@mtx/shared/errors';
import type { SizingInput } from './sizing';
import type { SymbolMatch } from './symbol-resolution';
import { isPendingOperation, isStopLimitOperation, normalizeOperation, operations, type Operation } from '@mtx/shared/trading';

/**
 * Batch validation, all or nothing (docs/architecture.md, "API rules"): the whole request is checked before anything is sent,
 * and the first problem rejects it with a 400 naming the field. Defaults are inherited per leg; an override
 * that is present wins even when falsy (slippage 0 means zero).
 */

export const legsMax = 20;
export const closeAccountsMax = 20;
export const commentLengthMax = 31;
const symbolLengthMax = 64;
const volumeMax = 100_000;
const isoTimestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

export interface OrderFieldsInput {
  symbol?: string | null;
  operation?: string | null;
  volume?: number | null;
  price?: number | null;
  slippage?: number | null;
  stop_loss?: number | null;
  take_profit?: number | null;
  stop_limit_price?: number | null;
  expiration?: string | null;
  comment?: string | null;
  expert_id?: number | null;
  sizing?: { mode?: string | null; lots_per_1000?: number | null; percent?: number | null } | null;
  symbol_match?: string | null;
  check_margin?: boolean | null;
}

export interface PlaceOrdersInput {
  defaults?: OrderFieldsInput | null;
  orders: Array<{ account_id: string; fields?: OrderFieldsInput | null }>;
}

export interface NormalizedLeg {
  index: number;
  account_id: string;
  symbol: string;
  operation: Operation;
  /** The volume given; 0 while a sized leg's volume is still to be computed. */
  volume: number;
  sizing?: SizingInput;
  symbol_match: SymbolMatch;
  check_margin: boolean;
  price?: number;
  slippage?: number;
  stop_loss?: number;
  take_profit?: number;
  stop_limit_price?: number;
  expiration?: string;
  comment?: string;
  expert_id?: number;
}

const orderFieldNames = [
  'symbol',
  'operation',
  'volume',
  'price',
  'slippage',
  'stop_loss',
  'take_profit',
  'stop_limit_price',
  'expiration',
  'comment',
  'expert_id',
  'sizing',
  'symbol_match',
  'check_margin',
] as const;

function present<T>(value: T | null | undefined): value is T {
  return value !== undefined && value !== null;
}

function invalid(message: string, param: string): AppError {
  return new AppError('invalid_request', message, { param });
}

function merge<T extends object>(defaults: T | null | undefined, overrides: T | null | undefined, names: readonly (keyof T)[]): Partial<T> {
  const merged: Partial<T> = {};
  for (const name of names) {
    const override = overrides?.[name];
    const fallback = defaults?.[name];
    if (present(override)) merged[name] = override as T[keyof T];
    else if (present(fallback)) merged[name] = fallback as T[keyof T];
  }
  return merged;
}

function checkFiniteNumber(value: unknown, param: string, rule: 'positive' | 'non_negative'): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(`${param} must be a number`, param);
  if (rule === 'positive' && !(value > 0)) throw invalid(`${param} must be greater than 0`, param);
  if (rule === 'non_negative' && value < 0) throw invalid(`${param} must not be negative`, param);
  return value;
}

function checkNonNegativeInteger(value: unknown, param: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw invalid(`${param} must be a non-negative integer`, param);
  return value;
}

export function checkExpiration(value: unknown, param: string, nowMs: number): string {
  if (typeof value !== 'string' || !isoTimestamp.test(value) || !Number.isFinite(Date.parse(value))) {
    throw invalid(`${param} must be an ISO 8601 timestamp such as 2030-01-31T17:00:00Z`, param);
  }
  if (Date.parse(value) <= nowMs) throw invalid(`${param} is in the past`, param);
  return new Date(Date.parse(value)).toISOString();
}

export function validatePlaceOrders(input: PlaceOrdersInput, nowMs: number): NormalizedLeg[] {
  if (!Array.isArray(input.orders) || input.orders.length === 0) throw invalid('orders must contain at least one leg', 'orders');
  if (input.orders.length > legsMax)
    throw new AppError('too_many_legs', `a batch has at most ${legsMax} legs; this one has ${input.orders.length}`, { param: 'orders' });
  const legs: NormalizedLeg[] = [];
  input.orders.forEach((order, index) => {
    const at = (field: string) => `orders[${index}].${field}`;
    if (typeof order.account_id !== 'string' || order.account_id.length === 0)
      throw invalid(`${at('account_id')} is required`, at('account_id'));
    const fields = merge(input.defaults, order.fields, orderFieldNames);

    if (!present(fields.symbol) || typeof fields.symbol !== 'string' || fields.symbol.trim().length === 0)
      throw invalid(`${at('symbol')} is required (per leg or in defaults)`, at('symbol'));
    if (fields.symbol.length > symbolLengthMax) throw invalid(`${at('symbol')} is longer than ${symbolLengthMax} characters`, at('symbol'));
    if (!present(fields.operation)) throw invalid(`${at('operation')} is required (per leg or in defaults)`, at('operation'));
    const operation = typeof fields.operation === 'string' ? normalizeOperation(fields.operation) : undefined;
    if (!operation) throw invalid(`${at('operation')} must be one of ${operations.join(', ')} (any case)`, at('operation'));
    // A leg's own volume or sizing replaces the other one inherited from defaults; both on one level is 400.
    const ownVolume = present(order.fields?.volume);
    const ownSizing = present(order.fields?.sizing);
    if ((ownVolume && ownSizing) || (!ownVolume && !ownSizing && present(input.defaults?.volume) && present(input.defaults?.sizing)))
      throw invalid(`${at('sizing')}: give either volume or sizing, not both`, at('sizing'));
    const sizingGiven = ownSizing || (!ownVolume && present(fields.sizing));
    let volume = 0;
    if (!sizingGiven) {
      if (!present(fields.volume)) throw invalid(`${at('volume')} is required (per leg or in defaults), or sizing`, at('volume'));
      volume = checkFiniteNumber(fields.volume, at('volume'), 'positive');
      if (volume > volumeMax) throw invalid(`${at('volume')} must not exceed ${volumeMax} lots`, at('volume'));
    }
    const symbolMatch = present(fields.symbol_match) ? oneOf(fields.symbol_match, ['exact', 'base'] as const, at('symbol_match')) : 'exact';
    if (present(fields.check_margin) && typeof fields.check_margin !== 'boolean')
      throw invalid(`${at('check_margin')} must be true or false`, at('check_margin'));

    const leg: NormalizedLeg = {
      index,
      account_id: order.account_id,
      symbol: fields.symbol.trim(),
      operation,
      volume,
      symbol_match: symbolMatch,
      check_margin: fields.check_margin === true,
    };
    if (sizingGiven) leg.sizing = checkSizing(fields.sizing, at('sizing'));
    if (present(fields.price)) leg.price = checkFiniteNumber(fields.price, at('price'), 'non_negative');
    if (present(fields.slippage)) leg.slippage = checkNonNegativeInteger(fields.slippage, at('slippage'));
    if (present(fields.stop_loss)) leg.stop_loss = checkFiniteNumber(fields.stop_loss, at('stop_loss'), 'non_negative');
    if (present(fields.take_profit)) leg.take_profit = checkFiniteNumber(fields.take_profit, at('take_profit'), 'non_negative');
    if (present(fields.stop_limit_price))
      leg.stop_limit_price = checkFiniteNumber(fields.stop_limit_price, at('stop_limit_price'), 'non_negative');
    if (present(fields.expiration)) leg.expiration = checkExpiration(fields.expiration, at('expiration'), nowMs);
    if (present(fields.comment)) {
      if (typeof fields.comment !== 'string' || fields.comment.length > commentLengthMax)
        throw invalid(`${at('comment')} must be at most ${commentLengthMax} characters`, at('comment'));
      leg.comment = fields.comment;
    }
    if (present(fields.expert_id)) leg.expert_id = checkNonNegativeInteger(fields.expert_id, at('expert_id'));

    if (isPendingOperation(operation) && !(leg.price !== undefined && leg.price > 0))
      throw invalid(`${at('price')} is required for a ${operation} order`, at('price'));
    if (isStopLimitOperation(operation) && !(leg.stop_limit_price !== undefined && leg.stop_limit_price > 0)) {
      throw invalid(`${at('stop_limit_price')} is required for a ${operation} order`, at('stop_limit_price'));
    }
    if (leg.sizing?.mode === 'risk' && !(leg.stop_loss !== undefined && leg.stop_loss > 0))
      throw invalid(
        `${at('stop_loss')} is required for risk sizing: the volume is what loses the percent at the stop loss`,
        at('stop_loss'),
      );
    legs.push(leg);
  });
  return legs;
}

const lotsPer1000Max = 1000;

/** A sizing object: equity or balance with lots_per_1000, or risk with percent; nothing else. */
function checkSizing(value: unknown, param: string): SizingInput {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid(`${param} must be an object`, param);
  const sizing = value as Record<string, unknown>;
  const mode = oneOf(sizing.mode, ['equity', 'balance', 'risk'] as const, `${param}.mode`);
  const allowed = mode === 'risk' ? ['mode', 'percent'] : ['mode', 'lots_per_1000'];
  // Keys starting with `_` are the gRPC loader's markers of proto3 optional fields, never the caller's.
  for (const [key, field] of Object.entries(sizing))
    if (present(field) && !key.startsWith('_') && !allowed.includes(key))
      throw invalid(`${param}.${key} does not apply to ${mode} sizing`, `${param}.${key}`);
  if (mode === 'risk') {
    const percent = checkFiniteNumber(sizing.percent, `${param}.percent`, 'positive');
    if (percent > 100) throw invalid(`${param}.percent must be at most 100`, `${param}.percent`);
    return { mode, percent };
  }
  const lotsPer1000 = checkFiniteNumber(sizing.lots_per_1000, `${param}.lots_per_1000`, 'positive');
  if (lotsPer1000 > lotsPer1000Max) throw invalid(`${param}.lots_per_1000 must be at most ${lotsPer1000Max}`, `${param}.lots_per_1000`);
  return { mode, lots_per_1000: lotsPer1000 };
}

export interface CloseFieldsInput {
  symbol?: string | null;
  symbol_match?: string | null;
  side?: string | null;
  kind?: string | null;
  magic?: number | null;
  volume?: number | null;
  slippage?: number | null;
}

export interface CloseOrdersInput {
  defaults?: CloseFieldsInput | null;
  accounts: Array<{ account_id: string; fields?: CloseFieldsInput | null; tickets?: number[] | null; has_tickets?: boolean }>;
}

export interface NormalizedCloseAccount {
  index: number;
  account_id: string;
  selector?: {
    symbol: string;
    symbol_match: 'exact' | 'base';
    side: 'long' | 'short' | 'any';
    kind: 'position' | 'pending' | 'any';
    magic?: number;
  };
  tickets: number[];
  volume?: number;
  slippage?: number;
}

const closeFieldNames = ['symbol', 'symbol_match', 'side', 'kind', 'magic', 'volume', 'slippage'] as const;
const selectorFieldNames = ['symbol', 'symbol_match', 'side', 'kind', 'magic'] as const;

function oneOf<T extends string>(value: unknown, allowed: readonly T[], param: string): T {
  if (typeof value !== 'string' || !allowed.includes(value as T)) throw invalid(`${param} must be one of ${allowed.join(', ')}`, param);
  return value as T;
}

export function validateCloseOrders(input: CloseOrdersInput): NormalizedCloseAccount[] {
  if (!Array.isArray(input.accounts) || input.accounts.length === 0)
    throw invalid('accounts must contain at least one account', 'accounts');
  if (input.accounts.length > closeAccountsMax)
    throw new AppError(
      'too_many_accounts',
      `a close request has at most ${closeAccountsMax} accounts; this one has ${input.accounts.length}`,
      { param: 'accounts' },
    );
  const seen = new Set<string>();
  return input.accounts.map((entry, index) => {
    const at = (field: string) => `accounts[${index}].${field}`;
    if (typeof entry.account_id !== 'string' || entry.account_id.length === 0)
      throw invalid(`${at('account_id')} is required`, at('account_id'));
    if (seen.has(entry.account_id))
      throw invalid(`account ${entry.account_id} appears more than once; give one entry per account`, at('account_id'));
    seen.add(entry.account_id);
    const hasTickets = entry.has_tickets || (Array.isArray(entry.tickets) && entry.tickets.length > 0);
    const fields = merge(input.defaults, entry.fields, closeFieldNames);
    const normalized: NormalizedCloseAccount = { index, account_id: entry.account_id, tickets: [] };
    if (present(fields.volume)) normalized.volume = checkFiniteNumber(fields.volume, at('volume'), 'positive');
    if (present(fields.slippage)) normalized.slippage = checkNonNegativeInteger(fields.slippage, at('slippage'));

    if (hasTickets) {
      const ownSelector = selectorFieldNames.filter((name) => present(entry.fields?.[name]));
      if (ownSelector.length > 0)
        throw invalid(
          `${at('tickets')}: an account has either a selector (${ownSelector.join(', ')}) or tickets, never both`,
          at('tickets'),
        );
      const tickets = entry.tickets ?? [];
      if (tickets.length === 0) throw invalid(`${at('tickets')} must not be empty`, at('tickets'));
      if (tickets.length > 100) throw invalid(`${at('tickets')} has more than 100 tickets`, at('tickets'));
      const unique = new Set<number>();
      tickets.forEach((ticket, ticketIndex) => {
        if (!Number.isSafeInteger(ticket) || ticket <= 0)
          throw invalid(`${at('tickets')}[${ticketIndex}] must be a positive integer`, `${at('tickets')}[${ticketIndex}]`);
        if (unique.has(ticket)) throw invalid(`${at('tickets')} lists ticket ${ticket} twice`, at('tickets'));
        unique.add(ticket);
      });
      normalized.tickets = [...unique];
      return normalized;
    }

    if (!present(fields.symbol) || typeof fields.symbol !== 'string' || fields.symbol.trim().length === 0) {
      throw invalid(
        `symbol is required for account ${entry.account_id} (per account or in defaults); use "*" to close every symbol`,
        'symbol',
      );
    }
    normalized.selector = normalizeSelector(fields, at);
    return normalized;
  });
}

export type Selector = NonNullable<NormalizedCloseAccount['selector']>;

/** A close selector's fields with their defaults (exact symbol match, either side, positions only). */
export function normalizeSelector(
  fields: { symbol?: unknown; symbol_match?: unknown; side?: unknown; kind?: unknown; magic?: unknown },
  at: (field: string) => string,
): Selector {
  if (typeof fields.symbol !== 'string' || fields.symbol.trim().length === 0)
    throw invalid(`${at('symbol')} must not be empty`, at('symbol'));
  if (fields.symbol.length > symbolLengthMax) throw invalid(`${at('symbol')} is longer than ${symbolLengthMax} characters`, at('symbol'));
  const selector: Selector = {
    symbol: fields.symbol.trim(),
    symbol_match: present(fields.symbol_match) ? oneOf(fields.symbol_match, ['exact', 'base'] as const, at('symbol_match')) : 'exact',
    side: present(fields.side) ? oneOf(fields.side, ['long', 'short', 'any'] as const, at('side')) : 'any',
    kind: present(fields.kind) ? oneOf(fields.kind, ['position', 'pending', 'any'] as const, at('kind')) : 'position',
  };
  if (present(fields.magic)) selector.magic = checkNonNegativeInteger(fields.magic, at('magic'));
  return selector;
}

export interface PositionsQuery {
  account_ids: string[];
  symbol?: string;
  symbol_match?: string;
  side?: string;
  kind?: string;
  magic?: number;
}

/**
 * A positions read: the close selector's grammar and defaults, with `*` (every symbol) when no symbol is given,
 * since a read cannot do harm; accounts distinct and at most a close's.
 */
export function validatePositionsQuery(input: PositionsQuery): { accountIds: string[]; selector: Selector } {
  if (input.account_ids.length > closeAccountsMax)
    throw new AppError(
      'too_many_accounts',
      `a positions read covers at most ${closeAccountsMax} accounts; this one names ${input.account_ids.length}`,
      {
        param: 'account_id',
      },
    );
  const seen = new Set<string>();
  for (const accountId of input.account_ids) {
    if (accountId.length === 0) throw invalid('account_id must not be empty', 'account_id');
    if (seen.has(accountId)) throw invalid(`account ${accountId} is named more than once`, 'account_id');
    seen.add(accountId);
  }
  const selector = normalizeSelector({ ...input, symbol: input.symbol ?? '*' }, (field) => field);
  return { accountIds: input.account_ids, selector };
}
