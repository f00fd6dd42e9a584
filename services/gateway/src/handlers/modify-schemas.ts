import { Type } from '@sinclair/typebox';
import { closeSelectorProperties } from './orders-schemas';

/** POST /v1/orders/modify: the close's selector (without volume and slippage) and the change. */

const { volume: _volume, slippage: _slippage, ...selector } = closeSelectorProperties;
export const modifySelectorProperties = {
  ...selector,
  kind: Type.Union([Type.Literal('position'), Type.Literal('pending'), Type.Literal('any')], {
    description: '`position` (default: open positions), `pending` (pending orders) or `any`.',
  }),
};

export const modifyChangeProperties = {
  stop_loss: Type.Number({
    minimum: 0,
    description: 'New stop loss; 0 removes it. Omitted: left as it is.',
  }),
  take_profit: Type.Number({
    minimum: 0,
    description: 'New take profit; 0 removes it. Omitted: left as it is.',
  }),
  price: Type.Number({
    exclusiveMinimum: 0,
    'x-error-message': 'must be greater than 0',
    description: "Pending orders only: the order's new price. Omitted: left as it is.",
  }),
  expiration: Type.String({
    format: 'date-time',
    description: 'Pending orders only: the new expiration, ISO 8601, in the future. Omitted: left as it is.',
    example: '2030-01-31T17:00:00Z',
  }),
};

export const ModifyAccountEntry = Type.Object(
  {
    account_id: Type.String({ minLength: 1, maxLength: 80, description: 'Account.' }),
    tickets: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1 }), {
        minItems: 1,
        maxItems: 100,
        description: 'Modify exactly these tickets, skipping the lookup. An account has either a selector or tickets, never both.',
      }),
    ),
    ...Type.Partial(Type.Object(modifySelectorProperties)).properties,
  },
  { additionalProperties: false },
);

export const ModifyOrdersBody = Type.Object(
  {
    defaults: Type.Optional(
      Type.Partial(Type.Object(modifySelectorProperties), {
        additionalProperties: false,
        description: 'Selector values every account inherits.',
      }),
    ),
    accounts: Type.Array(ModifyAccountEntry, {
      minItems: 1,
      maxItems: 20,
      'x-error-code': 'too_many_accounts',
      description: 'One entry per account, at most 20.',
    }),
    ...Type.Partial(Type.Object(modifySelectorProperties)).properties,
    ...Type.Partial(Type.Object(modifyChangeProperties)).properties,
  },
  {
    additionalProperties: false,
    description:
      'The selector exactly as POST /v1/orders/close takes it (a field at the top level or in `defaults`, never both), and the change: at least one of `stop_loss`, `take_profit`, `price`, `expiration` (400 `invalid_request` otherwise).',
  },
);

export const ModifyTicketResult = Type.Object(
  {
    ticket: Type.Integer({ description: 'Ticket.' }),
    symbol: Type.String({ description: 'As the broker names it.' }),
    type: Type.String({ description: 'buy, sell, buy_limit, sell_limit, buy_stop, sell_stop, buy_stop_limit or sell_stop_limit.' }),
    kind: Type.String({ description: '`position` or `pending`.' }),
    status: Type.String({
      description:
        '`modified`; `rejected` (by the trade server, with its retcode, or by a rule of ours, nothing sent: the message names it); `skipped` (matched beyond the 20-per-account cap; not sent); `unknown` (sent, no answer: it may have taken effect).',
    }),
    retcode: Type.Optional(Type.Integer({ description: 'MT5 TRADE_RETCODE_* (MT4 errors mapped).' })),
    retcode_description: Type.Optional(Type.String({ description: 'The retcode in words.' })),
    stop_loss: Type.Number({ description: 'The stop loss after the request (0: none).' }),
    take_profit: Type.Number({ description: 'The take profit after the request (0: none).' }),
    price: Type.Number({ description: "A pending order's price after the request; a position's open price." }),
    message: Type.String({ description: 'Explanation; empty when modified.' }),
  },
  { additionalProperties: false },
);

export const ModifyAccountResult = Type.Object(
  {
    account_id: Type.String({ description: 'Account.' }),
    platform: Type.String({ description: '`mt4` or `mt5`.' }),
    status: Type.String({
      description:
        '`modified` (every match was decided: see `results`), `nothing_matched`, `unavailable` (no terminal or no lookup; nothing sent) or `unknown` (no reply by the deadline, or a ticket whose outcome is unknown).',
    }),
    matched: Type.Integer({ description: 'Orders the selector or tickets matched.' }),
    modified: Type.Integer({ description: 'Orders modified on this account.' }),
    message: Type.String({ description: 'Explanation; empty when nothing needs one.' }),
    latency_ms: Type.Integer({ description: 'Milliseconds spent on the account: lookup and modifies.' }),
    results: Type.Array(ModifyTicketResult, { description: 'One per matched ticket, in ticket order (explicit tickets not found last).' }),
  },
  { additionalProperties: false },
);

export const ModifyOrdersResponse = Type.Object(
  {
    batch_id: Type.String({ description: 'Identifies the request (with an Idempotency-Key, the same on every retry).' }),
    idempotent_replay: Type.Boolean({
      description: 'True when this is the stored answer of an earlier request with the same Idempotency-Key.',
    }),
    summary: Type.Object(
      {
        accounts: Type.Integer({ description: 'Accounts in the request.' }),
        matched: Type.Integer({ description: 'Orders matched across all accounts.' }),
        modified: Type.Integer({ description: 'Orders modified across all accounts.' }),
        failed: Type.Integer({ description: 'Tickets rejected.' }),
        unknown: Type.Integer({ description: 'Tickets whose outcome is unknown.' }),
        accounts_unknown: Type.Integer({ description: 'Accounts that did not answer by the deadline.' }),
      },
      { additionalProperties: false, description: 'Counts over every account and ticket.' },
    ),
    results: Type.Array(ModifyAccountResult, { description: 'One result per account, in the order of `accounts`.' }),
  },
  { additionalProperties: false },
);
