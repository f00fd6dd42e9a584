import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { AccountPositions__Output } from '@mtx/shared/generated/proto/mtx/execution/v1/AccountPositions';
import type { AccountState__Output } from '@mtx/shared/generated/proto/mtx/execution/v1/AccountState';
import { principalOf, type GatewayApp, type GatewayDependencies } from '../context';
import { errorResponses, stringEnum } from './schemas';

const accountsPerReadMax = 20;
/** Margin over execution's read deadline for the gRPC call: resolving the accounts and answering. */
const readCallMarginMs = 2_000;

const PositionsQuery = Type.Object(
  {
    account_id: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 80 }), {
        maxItems: accountsPerReadMax,
        'x-error-code': 'too_many_accounts',
        description: `Repeat for each account, at most ${accountsPerReadMax}. None: every account of the customer (400 \`too_many_accounts\` when there are more than ${accountsPerReadMax}).`,
      }),
    ),
    symbol: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'As the broker names it; `*` (the default here) is every symbol.',
        example: 'EURUSD',
      }),
    ),
    symbol_match: Type.Optional(
      stringEnum(['exact', 'base'] as const, {
        description: '`exact` (default) or `base`: EURUSD also matches EURUSD.xx, EURUSDm, EURUSD-ecn on the account’s server.',
      }),
    ),
    side: Type.Optional(stringEnum(['long', 'short', 'any'] as const, { description: 'Default `any`.' })),
    kind: Type.Optional(
      stringEnum(['position', 'pending', 'any'] as const, {
        description: '`position` (default), `pending` orders, or `any`.',
      }),
    ),
    magic: Type.Optional(Type.Integer({ minimum: 0, description: 'Only orders with this magic number (expert id).' })),
  },
  { additionalProperties: false },
);

const Position = Type.Object(
  {
    ticket: Type.Integer({ description: 'Ticket of the position or pending order.' }),
    symbol: Type.String({ description: 'As the broker names it.' }),
    type: Type.String({ description: 'buy, sell, buy_limit, sell_limit, buy_stop, sell_stop, buy_stop_limit or sell_stop_limit.' }),
    kind: Type.String({ description: '`position` or `pending`.' }),
    volume: Type.Number({ description: 'Lots.' }),
    open_price: Type.Number({ description: 'Open price; for a pending order, its order price.' }),
    current_price: Type.Number({ description: 'The price it would close at now; for a pending order, the price it triggers on.' }),
    stop_loss: Type.Number({ description: '0 for none.' }),
    take_profit: Type.Number({ description: '0 for none.' }),
    profit: Type.Number({ description: 'Floating profit in the account currency at current_price, without swap; 0 for a pending order.' }),
    swap: Type.Number({ description: 'Swap accrued at the daily rollovers since it opened.' }),
    magic: Type.Integer({ description: 'Magic number (expert id).' }),
    comment: Type.String({ description: 'The order comment.' }),
    opened_at: Type.String({ format: 'date-time', description: 'When it opened (a pending order: when it was placed).' }),
  },
  { additionalProperties: false },
);

const AccountPositions = Type.Object(
  {
    account_id: Type.String({ description: 'The account read.' }),
    platform: Type.String({ description: '`mt4` or `mt5`.' }),
    status: Type.String({
      description:
        '`ok`; `unavailable` (no session to the trade server, or no terminal running for it: nothing could be read); `unknown` (no answer within the deadline).',
    }),
    message: Type.String({ description: 'Why the account was not read; empty when `ok`.' }),
    latency_ms: Type.Integer({ description: 'How long the terminal took to answer.' }),
    positions: Type.Array(Position, { description: 'What a close with the same selector would take, in the order it would take them.' }),
  },
  { additionalProperties: false },
);

const PositionsResponse = Type.Object(
  {
    results: Type.Array(AccountPositions, { description: 'One entry per account, in the order asked (or the accounts list).' }),
    summary: Type.Object(
      {
        accounts: Type.Integer({ description: 'Accounts asked.' }),
        positions: Type.Integer({ description: 'Positions and pending orders listed, all accounts together.' }),
        unavailable: Type.Integer({ description: 'Accounts `unavailable`.' }),
        unknown: Type.Integer({ description: 'Accounts `unknown`.' }),
      },
      { additionalProperties: false, description: 'Counts over every account.' },
    ),
  },
  { additionalProperties: false },
);

const AccountStateResponse = Type.Object(
  {
    account_id: Type.String({ description: 'The account.' }),
    platform: Type.String({ description: '`mt4` or `mt5`.' }),
    connected: Type.Boolean({ description: 'The terminal holds a session to the trade server; when false, the figures are null.' }),
    reason: Type.String({
      description: 'Why it is not connected: `invalid_credentials`, `unknown_server` or `no_connection`; empty when connected.',
    }),
    message: Type.String({ description: 'Why it is not connected, in words; empty when connected.' }),
    server: Type.String({ description: 'The trade server.' }),
    currency: Type.Union([Type.String(), Type.Null()], { description: 'Account currency.' }),
    leverage: Type.Union([Type.Integer(), Type.Null()], { description: 'Leverage, e.g. 100 for 1:100.' }),
    balance: Type.Union([Type.Number(), Type.Null()], { description: 'Balance in the account currency.' }),
    equity: Type.Union([Type.Number(), Type.Null()], { description: 'Balance plus floating profit and swap.' }),
    margin: Type.Union([Type.Number(), Type.Null()], { description: 'Margin in use.' }),
    free_margin: Type.Union([Type.Number(), Type.Null()], { description: 'Equity minus margin.' }),
    margin_level: Type.Union([Type.Number(), Type.Null()], {
      description: 'Equity / margin × 100, in percent; null when no margin is used.',
    }),
    profit: Type.Union([Type.Number(), Type.Null()], { description: 'Floating profit of the open positions, swap included.' }),
    margin_mode: Type.Union([Type.String(), Type.Null()], { description: '`hedging` or `netting`.' }),
    trade_allowed: Type.Union([Type.Boolean(), Type.Null()], { description: 'The trade server accepts trades on the account now.' }),
    server_time: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: "The trade server's clock." }),
    latency_ms: Type.Integer({ description: 'How long the terminal took to answer.' }),
  },
  { additionalProperties: false },
);

/**
 * An account's positions as execution answered them: its message has exactly the public fields, and decodes with
 * every field set and 64-bit integers as numbers (conversionOptions), so the route's serializer writes it as it
 * is, without a copy of each of up to a few hundred positions per read.
 */
function accountPositions(result: AccountPositions__Output): Static<typeof AccountPositions> {
  return result;
}

function accountState(state: AccountState__Output): Static<typeof AccountStateResponse> {
  const figure = <T>(value: T | null | undefined): T | null => (value === undefined || value === null ? null : value);
  return {
    account_id: state.account_id,
    platform: state.platform,
    connected: !!state.connected,
    reason: state.reason,
    message: state.message,
    server: state.server,
    currency: figure(state.currency),
    leverage: figure(state.leverage),
    balance: figure(state.balance),
    equity: figure(state.equity),
    margin: figure(state.margin),
    free_margin: figure(state.free_margin),
    margin_level: figure(state.margin_level),
    profit: figure(state.profit),
    margin_mode: figure(state.margin_mode),
    trade_allowed: figure(state.trade_allowed),
    server_time: figure(state.server_time),
    latency_ms: Number(state.latency_ms),
  };
}

export async function registerPortfolioRoutes(app: GatewayApp, dependencies: GatewayDependencies): Promise<void> {
  const deadlineMs = dependencies.config.READ_DEADLINE_MS + readCallMarginMs;

  app.get(
    '/v1/positions',
    {
      schema: {
        tags: ['portfolio'],
        summary: 'List open positions and pending orders across accounts',
        description: `The positions (and, with \`kind\`, pending orders) a POST /v1/orders/close with the same selector would match, per account, in the order the close would take them, each valued at the trade server's current prices. The selector has the close's grammar and defaults, except that \`symbol\` defaults to \`*\` here. Each account is read through its own terminal at once; one that cannot be read comes back \`unavailable\` or \`unknown\` without failing the others. At most ${accountsPerReadMax} accounts per call. Works with a read-only key.`,
        querystring: PositionsQuery,
        response: { 200: PositionsResponse, ...errorResponses(400) } as Record<number, TSchema>,
      },
    },
    async (request) => {
      const query = request.query as Static<typeof PositionsQuery>;
      const response = await dependencies.clients.execution.call(
        'ListPositions',
        {
          customer_id: principalOf(request).customer_id,
          account_ids: query.account_id ?? [],
          ...(query.symbol !== undefined ? { symbol: query.symbol } : {}),
          ...(query.symbol_match !== undefined ? { symbol_match: query.symbol_match } : {}),
          ...(query.side !== undefined ? { side: query.side } : {}),
          ...(query.kind !== undefined ? { kind: query.kind } : {}),
          ...(query.magic !== undefined ? { magic: query.magic } : {}),
        },
        { deadlineMs },
      );
      const summary = response.summary;
      return {
        results: (response.results ?? []).map(accountPositions),
        summary: {
          accounts: summary?.accounts ?? 0,
          positions: summary?.positions ?? 0,
          unavailable: summary?.unavailable ?? 0,
          unknown: summary?.unknown ?? 0,
        },
      };
    },
  );

  app.get(
    '/v1/accounts/:account_id/state',
    {
      schema: {
        tags: ['accounts'],
        summary: "Read an account's balance, equity and margin now",
        description:
          "The account's figures as its terminal reads them from the trade server at this moment: equity moves with prices. When the account's terminal is not attached or has no session with its trade server (`connected` false, with the reason) the figures are null. 404 for an unknown account or another customer's; 503 `unavailable` when an attached terminal does not answer in time. Works with a read-only key.",
        params: Type.Object({ account_id: Type.String({ minLength: 1, maxLength: 80 }) }, { additionalProperties: false }),
        response: { 200: AccountStateResponse, ...errorResponses(400, 404) } as Record<number, TSchema>,
      },
    },
    async (request) => {
      const { account_id } = request.params as { account_id: string };
      const state = await dependencies.clients.execution.call(
        'GetAccountState',
        { customer_id: principalOf(request).customer_id, account_id },
        { deadlineMs },
      );
      return accountState(state);
    },
  );
}
