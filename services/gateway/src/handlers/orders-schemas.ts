import { Type } from '@sinclair/typebox';
import { deskOrderFieldProperties, LegSizingResult } from './orders-desk-schemas';
import { stringEnum, terminalText } from './schemas';

/** The request and response schemas of the trading routes; the OpenAPI document and the client come from them. */

export const orderFieldProperties = {
  symbol: Type.String({
    ...terminalText,
    minLength: 1,
    maxLength: 64,
    description:
      "Symbol as the account's broker names it, suffix included (EURUSD, EURUSD.xx, EURUSDm, EURUSD-ecn). Suffixes differ per broker: set it per leg in mixed batches.",
    example: 'EURUSD.xx',
  }),
  operation: Type.String({
    ...terminalText,
    minLength: 1,
    maxLength: 20,
    description:
      'buy, sell, buyLimit, sellLimit, buyStop, sellStop, buyStopLimit or sellStopLimit, in any case. MT4 accounts have no stop-limit orders (rejected with TRADE_RETCODE_INVALID_ORDER).',
    example: 'buy',
  }),
  volume: Type.Number({
    exclusiveMinimum: 0,
    'x-error-message': 'must be greater than 0',
    description:
      "Lots; must be greater than 0 and fit the symbol's volume minimum, maximum and step at the broker. Required per leg or in defaults unless `sizing` is given.",
    example: 0.1,
  }),
  price: Type.Number({
    minimum: 0,
    description:
      'Pending orders: the order price (required; for stop-limit orders the stop price). Market orders: the price expected, checked against `slippage`; omit to take the market price.',
    example: 1.085,
  }),
  slippage: Type.Integer({
    minimum: 0,
    description: 'Allowed deviation from `price`, in points (integer). 0 means exactly zero.',
    example: 10,
  }),
  stop_loss: Type.Number({ minimum: 0, description: 'Stop loss price; 0 for none.', example: 1.08 }),
  take_profit: Type.Number({ minimum: 0, description: 'Take profit price; 0 for none.', example: 1.095 }),
  stop_limit_price: Type.Number({
    minimum: 0,
    description:
      'Limit price of a buyStopLimit/sellStopLimit order, placed when the stop `price` is reached. Required for those operations.',
    example: 1.0905,
  }),
  expiration: Type.String({
    ...terminalText,
    maxLength: 40,
    description: 'Expiry of a pending order, ISO 8601 UTC (e.g. 2030-01-31T17:00:00Z); must be in the future.',
    example: '2030-01-31T17:00:00Z',
  }),
  comment: Type.String({ ...terminalText, maxLength: 31, description: 'Order comment, at most 31 characters.', example: 'rebalance' }),
  expert_id: Type.Integer({ minimum: 0, description: 'Magic number stored with the order (non-negative integer).', example: 123456 }),
  ...deskOrderFieldProperties,
};

export const OrderDefaults = Type.Partial(Type.Object(orderFieldProperties, { additionalProperties: false }), {
  additionalProperties: false,
  description:
    'Values every leg inherits; a leg may override any of them, also with a falsy value (slippage 0 means zero, not "fall back").',
});

export const OrderLeg = Type.Object(
  {
    account_id: Type.String({
      minLength: 1,
      maxLength: 80,
      description: "One of the customer's accounts (GET /v1/accounts). The same account may appear in several legs.",
      example: 'acc_3Xk9pQ2mZr7TnB4w',
    }),
    ...Type.Partial(Type.Object(orderFieldProperties)).properties,
  },
  { additionalProperties: false, description: 'One order on one account. Fields not set here come from `defaults`.' },
);

export const PlaceOrdersBody = Type.Object(
  {
    defaults: Type.Optional(OrderDefaults),
    orders: Type.Array(OrderLeg, {
      minItems: 1,
      maxItems: 20,
      'x-error-code': 'too_many_legs',
      description: 'At most 20 legs; accounts on mt4 and mt5 may be mixed.',
    }),
  },
  { additionalProperties: false },
);

export const OrderLegResult = Type.Object(
  {
    account_id: Type.String({ description: 'Account of the leg.' }),
    platform: Type.String({ description: '`mt4` or `mt5`.', example: 'mt5' }),
    symbol: Type.String({ description: 'Symbol traded: the broker symbol used (a `base` name resolved).' }),
    operation: Type.String({ description: 'Operation used, in canonical spelling.', example: 'buy' }),
    volume: Type.Number({ description: 'Lots, as sent (a sized leg: the volume computed; 0 when sizing refused it).' }),
    status: Type.String({
      description:
        '`filled` (deal made), `placed` (pending order accepted), `rejected` (the broker or the service refused it; see retcode and message), `unavailable` (no terminal for the account: nothing was sent), `unknown` (no reply by the deadline: it may have executed; GET /v1/orders/batches/{batch_id} shows the outcome once late replies or reconciliation settle it).',
      example: 'filled',
    }),
    order: Type.Integer({ description: 'Order (ticket) number; 0 when rejected.' }),
    deal: Type.Integer({ description: 'Deal number; 0 when rejected or placed. On MT4 the ticket.' }),
    price: Type.Optional(Type.Number({ description: 'Execution price (fill) or order price (placed).' })),
    bid: Type.Optional(Type.Number({ description: 'Bid at execution.' })),
    ask: Type.Optional(Type.Number({ description: 'Ask at execution.' })),
    retcode: Type.Optional(
      Type.Integer({
        description: 'MT5 TRADE_RETCODE_* number on both platforms (MT4 errors are mapped); absent when unavailable or unknown.',
        example: 10009,
      }),
    ),
    retcode_description: Type.Optional(
      Type.String({
        description:
          'Name of the code. Also on unavailable legs (TRADE_RETCODE_CONNECTION) and unknown legs (TRADE_RETCODE_TIMEOUT), which have no retcode.',
        example: 'TRADE_RETCODE_DONE',
      }),
    ),
    message: Type.String({ description: 'Explanation; empty on success.' }),
    latency_ms: Type.Integer({ description: 'Milliseconds spent on the leg (a leg settled later keeps the time its first answer took).' }),
    sizing: Type.Optional(LegSizingResult),
  },
  { additionalProperties: false },
);

export const PlaceSummary = Type.Object(
  {
    requested: Type.Integer({ description: 'Legs in the batch.' }),
    filled: Type.Integer({ description: 'Legs filled at the market.' }),
    placed: Type.Integer({ description: 'Pending orders accepted.' }),
    failed: Type.Integer({ description: 'Legs rejected or unavailable.' }),
    unknown: Type.Integer({ description: 'Legs without a reply by the deadline.' }),
  },
  { additionalProperties: false, description: 'Counts of the legs by outcome.' },
);

export const PlaceOrdersResponse = Type.Object(
  {
    batch_id: Type.String({
      description: 'Identifier of the stored batch; read it again at GET /v1/orders/batches/{batch_id}.',
      example: 'bat_7hQ2mZr9TnB4wXk3pL8c',
    }),
    idempotent_replay: Type.Boolean({
      description: 'True when this is the stored response of an earlier request with the same Idempotency-Key.',
    }),
    summary: PlaceSummary,
    results: Type.Array(OrderLegResult, { description: 'One result per leg, in the order of `orders`.' }),
  },
  { additionalProperties: false },
);

export const closeSelectorProperties = {
  symbol: Type.String({
    ...terminalText,
    minLength: 1,
    maxLength: 64,
    description:
      'Symbol as the broker names it, compared case-sensitively under `exact`; `*` (typed literally) closes every symbol. Required per account or in defaults unless the account lists tickets.',
    example: 'EURUSD',
  }),
  symbol_match: Type.Union([Type.Literal('exact'), Type.Literal('base')], {
    description:
      "`exact` (default): the whole name, case-sensitive, as the broker names it. `base`: the base B (case-insensitive) followed by nothing, by a separator (. - _ # ! +) and alphanumerics, or by one or two alphanumerics, and only where B itself names a symbol on the account's broker (B, or B plus the account's symbol suffix, is in its symbol list). EURUSD matches EURUSD.xx, EURUSD-ecn and EURUSDm but not EURUSDPRO; a shorter prefix (EUR, EURU, EURUS) never matches EURUSD.",
  }),
  side: Type.Union([Type.Literal('long'), Type.Literal('short'), Type.Literal('any')], {
    description: '`long`, `short` or `any` (default).',
  }),
  kind: Type.Union([Type.Literal('position'), Type.Literal('pending'), Type.Literal('any')], {
    description: '`position` (default: open positions), `pending` (deletes pending orders) or `any`.',
  }),
  magic: Type.Integer({ minimum: 0, description: 'Only orders with this magic number (expert id).' }),
  volume: Type.Number({
    exclusiveMinimum: 0,
    'x-error-message': 'must be greater than 0',
    description:
      "Greater than 0. Partial close of each matched position, rounded DOWN to the symbol's volume step; omit for a full close. A volume that rounds below the symbol's minimum fails that ticket without sending.",
  }),
  slippage: Type.Integer({ minimum: 0, description: 'Allowed slippage in points.' }),
};

export const CloseDefaults = Type.Partial(Type.Object(closeSelectorProperties), {
  additionalProperties: false,
  description: 'Selector values every account inherits.',
});

export const CloseAccountEntry = Type.Object(
  {
    account_id: Type.String({ minLength: 1, maxLength: 80, description: 'Account.' }),
    tickets: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1 }), {
        minItems: 1,
        maxItems: 100,
        description:
          'Close exactly these tickets (positions closed, pending orders deleted), skipping the lookup. An account has either a selector or tickets, never both.',
      }),
    ),
    ...Type.Partial(Type.Object(closeSelectorProperties)).properties,
  },
  { additionalProperties: false },
);

export const CloseOrdersBody = Type.Object(
  {
    defaults: Type.Optional(CloseDefaults),
    accounts: Type.Array(CloseAccountEntry, {
      minItems: 1,
      maxItems: 20,
      'x-error-code': 'too_many_accounts',
      description: 'One entry per account, at most 20.',
    }),
    require_reachable: Type.Optional(
      Type.Boolean({
        description:
          'When true, the whole request is refused up front (409 accounts_unreachable, with the account ids) if any account has no terminal; otherwise such an account is reported `unavailable`.',
      }),
    ),
    ...Type.Partial(
      Type.Object(closeSelectorProperties, {
        description: 'Selector fields may also be given at the top level, where they act as defaults.',
      }),
    ).properties,
  },
  {
    additionalProperties: false,
    // Not stated as `not` rules: schemathesis cannot generate data for them, so the rule is enforced by the route
    // and documented there.
    description: 'A selector field is given at the top level or in `defaults`, never both (400 `invalid_request`, param: the field).',
  },
);

export const TicketResult = Type.Object(
  {
    ticket: Type.Integer({ description: 'Ticket of the position or pending order.' }),
    symbol: Type.String({
      description: 'Symbol as the broker names it; empty for a ticket no open order has (status `failed`, TRADE_RETCODE_INVALID).',
    }),
    type: Type.String({
      description:
        'Order type as the platform names it: buy, sell, buy_limit, sell_limit, buy_stop, sell_stop, buy_stop_limit, sell_stop_limit; empty for a ticket no open order has.',
    }),
    kind: Type.String({ description: '`position` or `pending`; empty for a ticket no open order has.' }),
    volume: Type.Number({ description: 'Volume closed (or of the order deleted).' }),
    status: Type.String({
      description: '`closed`, `failed`, `skipped` (matched beyond the 20-per-account cap; not sent) or `unknown` (sent, no answer).',
    }),
    retcode: Type.Optional(
      Type.Integer({
        description:
          'MT5 TRADE_RETCODE_* number (MT4 errors mapped); TRADE_RETCODE_LIMIT_ORDERS when skipped; absent when unknown (sent, no answer).',
        example: 10009,
      }),
    ),
    retcode_description: Type.Optional(Type.String({ description: 'Name of the code.', example: 'TRADE_RETCODE_DONE' })),
    price: Type.Optional(Type.Number({ description: 'Close price; 0 when the ticket was not closed.' })),
    message: Type.String({ description: 'Explanation; empty on success.' }),
  },
  { additionalProperties: false },
);

export const CloseAccountResult = Type.Object(
  {
    account_id: Type.String({ description: 'Account.' }),
    platform: Type.String({ description: '`mt4` or `mt5`.', example: 'mt4' }),
    status: Type.String({
      description:
        '`closed`, `partial` (some closed, others failed, skipped or unknown), `nothing_matched`, `failed`, `unavailable` (no terminal; nothing sent) or `unknown` (no reply by the deadline).',
    }),
    matched: Type.Integer({ description: 'Orders matched by the selector (or tickets given), skipped ones included.' }),
    closed: Type.Integer({ description: 'Orders closed or deleted on this account.' }),
    message: Type.String({ description: 'Explanation; empty when every match closed.' }),
    latency_ms: Type.Integer({ description: 'Milliseconds spent on the account: lookup and closes.' }),
    results: Type.Array(TicketResult, { description: 'One result per matched ticket; matches past 20 come back `skipped`.' }),
  },
  { additionalProperties: false },
);

export const CloseSummary = Type.Object(
  {
    accounts: Type.Integer({ description: 'Accounts in the request.' }),
    matched: Type.Integer({ description: 'Orders matched across all accounts.' }),
    closed: Type.Integer({ description: 'Orders closed or deleted across all accounts.' }),
    failed: Type.Integer({ description: 'Tickets that failed.' }),
    unknown: Type.Integer({ description: 'Tickets whose outcome is unknown.' }),
    accounts_unknown: Type.Integer({ description: 'Accounts that did not answer by the deadline.' }),
    accounts_unavailable: Type.Integer({ description: 'Accounts with no terminal: nothing was sent to them.' }),
    accounts_failed: Type.Integer({
      description: 'Accounts that failed as a whole before any ticket (the lookup was refused, the request arrived late).',
    }),
  },
  { additionalProperties: false, description: 'Counts of accounts and tickets by outcome.' },
);

export const CloseOrdersResponse = Type.Object(
  {
    batch_id: Type.String({ description: 'Identifier of the stored batch; read it again at GET /v1/orders/batches/{batch_id}.' }),
    idempotent_replay: Type.Boolean({
      description: 'True when this is the stored response of an earlier request with the same Idempotency-Key.',
    }),
    summary: CloseSummary,
    results: Type.Array(CloseAccountResult, { description: 'One result per account, in the order of `accounts`.' }),
  },
  { additionalProperties: false },
);

export const BatchResponse = Type.Object(
  {
    batch_id: Type.String({ description: 'The batch.' }),
    kind: Type.String({ description: '`orders` (POST /v1/orders) or `close` (POST /v1/orders/close).' }),
    created_at: Type.String({ format: 'date-time', description: 'When the batch was received.' }),
    settled: Type.Boolean({ description: 'True once no leg, account or ticket is unknown any more.' }),
    summary: Type.Unsafe<Record<string, number>>({
      type: 'object',
      additionalProperties: { type: 'integer' },
      description: 'As in the original response (orders or close summary), recomputed from the latest outcomes.',
    }),
    results: Type.Array(
      Type.Unsafe<Record<string, unknown>>({
        type: 'object',
        additionalProperties: true,
        description: 'Order-leg results (kind `orders`) or per-account close results (kind `close`), each with its latest outcome.',
      }),
      { description: 'Latest outcome of every leg or account.' },
    ),
  },
  { additionalProperties: false },
);

export const BatchListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'Batches per page, 1 to 100 (default 10).' })),
    starting_after: Type.Optional(
      Type.String({
        pattern: '^bat_[0-9A-Za-z]{1,64}$',
        description: 'A batch_id from the previous page (its last entry): the page continues after it.',
      }),
    ),
    kind: Type.Optional(stringEnum(['orders', 'close'] as const, { description: 'Only batches of this kind.' })),
    created_gte: Type.Optional(Type.String({ format: 'date-time', description: 'Only batches created at or after this time (ISO 8601).' })),
    created_lt: Type.Optional(Type.String({ format: 'date-time', description: 'Only batches created before this time (ISO 8601).' })),
  },
  { additionalProperties: false },
);

export const BatchListItem = Type.Object(
  {
    batch_id: Type.String({ description: 'The batch; GET /v1/orders/batches/{batch_id} has its results.' }),
    kind: Type.String({ description: '`orders` or `close`.' }),
    created_at: Type.String({ format: 'date-time', description: 'When the batch was received.' }),
    settled: Type.Boolean({ description: 'True once no leg, account or ticket is unknown any more.' }),
    summary: Type.Unsafe<Record<string, number>>({
      type: 'object',
      additionalProperties: { type: 'integer' },
      description: 'The orders or close summary, from the latest outcomes (as GET /v1/orders/batches/{batch_id} gives it).',
    }),
  },
  { additionalProperties: false },
);

export const BatchListResponse = Type.Object(
  {
    data: Type.Array(BatchListItem, { description: 'Newest first (by when the outcomes were recorded).' }),
    has_more: Type.Boolean({ description: 'More batches follow: ask again with starting_after set to the last batch_id.' }),
  },
  { additionalProperties: false },
);

export const idempotencyHeader = Type.Object(
  {
    'idempotency-key': Type.Optional(
      Type.String({
        description:
          'Up to 128 characters. One key names one request of this customer, on any route. Replaying the same body with the same key within 15 minutes returns the original response (idempotent_replay: true) and sends nothing; another body, or the same key on another route, gives 409 `idempotency_key_reused`. After 15 minutes the key is forgotten and a request with it is new.',
      }),
    ),
  },
  { additionalProperties: true },
);
