import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { ListHistoryResponse__Output } from '@mtx/shared/generated/proto/mtx/execution/v1/ListHistoryResponse';
import { principalOf, type GatewayApp, type GatewayDependencies } from '../context';
import { errorResponses } from './schemas';

const accountsPerReadMax = 20;
/** Margin over execution's read deadline for the gRPC call: resolving the accounts and answering. */
const readCallMarginMs = 2_000;

const HistoryQuery = Type.Object(
  {
    account_id: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 80 }), {
        maxItems: accountsPerReadMax,
        'x-error-code': 'too_many_accounts',
        description: `Repeat for each account, at most ${accountsPerReadMax}. None: the customer's first ${accountsPerReadMax} accounts in the order of GET /v1/accounts. An account that is not the customer's is 404.`,
      }),
    ),
    from: Type.Optional(
      Type.String({ format: 'date-time', description: 'Oldest time included (ISO 8601). Default: 30 days before `to`.' }),
    ),
    to: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'Newest time included (ISO 8601). Default: now. At most 90 days after `from` (else 400).',
      }),
    ),
    symbol: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        pattern: '^[^\\u0000-\\u001F\\u007F]*$',
        description:
          'Only this symbol: as the broker names it, or its base (EURUSD also matches EURUSD.xx on an account whose suffix is .xx).',
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Items per page, 1-100. Default 50.' })),
    starting_after: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description:
          'The `next_cursor` of the previous page. The page keeps the first page’s `from` and `to`; give the same accounts and symbol.',
      }),
    ),
  },
  { additionalProperties: false },
);

const located = {
  account_id: Type.String({ description: 'The account.' }),
  platform: Type.String({ description: '`mt4` or `mt5`.' }),
};

const Deal = Type.Object(
  {
    ...located,
    ticket: Type.Integer({ description: 'Deal ticket (MT4, which has no deals: the order ticket).' }),
    order: Type.Integer({ description: 'The order the deal executed.' }),
    position_id: Type.Integer({ description: 'The position it opened, changed or closed (0 for balance operations).' }),
    symbol: Type.String({ description: 'As the broker names it; empty for balance operations.' }),
    type: Type.String({
      description: '`buy`, `sell`, `balance`, `credit`, `charge`, `correction`, `bonus`, `commission`, ... (MT5 DEAL_TYPE in lower case).',
    }),
    entry: Type.String({ description: '`in`, `out`, `inout` (a reversal) or `out_by` (closed by an opposite position).' }),
    volume: Type.Number({ description: 'Lots.' }),
    price: Type.Number({ description: 'Execution price.' }),
    profit: Type.Number({ description: 'Profit in the account currency (an opening deal: 0).' }),
    swap: Type.Number({ description: 'Swap settled by the deal.' }),
    commission: Type.Number({ description: 'Commission charged on the deal.' }),
    magic: Type.Integer({ description: 'Magic number (expert id).' }),
    comment: Type.String({ description: 'The comment the trade server recorded.' }),
    time: Type.String({ format: 'date-time', description: 'When it executed.' }),
  },
  { additionalProperties: false },
);

const Order = Type.Object(
  {
    ...located,
    ticket: Type.Integer({ description: 'Order ticket.' }),
    symbol: Type.String({ description: 'As the broker names it.' }),
    type: Type.String({ description: 'buy, sell, buy_limit, sell_limit, buy_stop, sell_stop, buy_stop_limit or sell_stop_limit.' }),
    state: Type.String({
      description: '`filled`, `canceled`, `expired`, `rejected`, `partial`, `placed` or `started` (MT5 ORDER_STATE in lower case).',
    }),
    volume_initial: Type.Number({ description: 'Lots ordered.' }),
    volume_current: Type.Number({ description: 'Lots left unfilled.' }),
    price_open: Type.Number({ description: 'The order price (a market order: the price it filled at).' }),
    stop_loss: Type.Number({ description: '0 for none.' }),
    take_profit: Type.Number({ description: '0 for none.' }),
    time_setup: Type.String({ format: 'date-time', description: 'When it was placed.' }),
    time_done: Type.String({ format: 'date-time', description: 'When it was filled, cancelled or expired.' }),
    magic: Type.Integer({ description: 'Magic number (expert id).' }),
    comment: Type.String({ description: 'The order comment.' }),
    position_id: Type.Integer({ description: 'The position it opened or changed (0 for none).' }),
  },
  { additionalProperties: false },
);

const pageOf = <T extends TSchema>(item: T) =>
  Type.Object(
    {
      data: Type.Array(item, { description: 'Newest first: by time, then account id, then ticket, all descending.' }),
      has_more: Type.Boolean({ description: 'Whether to ask again with `starting_after` = `next_cursor`.' }),
      next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Opaque; null on the last page.' }),
      accounts: Type.Array(
        Type.Object(
          {
            account_id: Type.String({ description: 'The account.' }),
            status: Type.String({
              description: '`ok`; `unavailable` (no terminal or no session: nothing read); `unknown` (no answer in time).',
            }),
            message: Type.String({ description: 'Why it was not read; empty when `ok`.' }),
          },
          { additionalProperties: false },
        ),
        { description: 'Each account asked and whether its history is in this page: an account not `ok` is missing from it.' },
      ),
    },
    { additionalProperties: false },
  );

const DealsPage = pageOf(Deal);
const OrdersPage = pageOf(Order);

function numbered<T extends object>(item: T, names: string[]): T {
  const copy = { ...item } as Record<string, unknown>;
  for (const name of names) copy[name] = Number(copy[name]);
  return copy as T;
}

function page(response: ListHistoryResponse__Output, kind: 'deals' | 'orders') {
  const data =
    kind === 'deals'
      ? (response.deals ?? []).map((deal) => numbered(deal, ['ticket', 'order', 'position_id', 'magic']))
      : (response.orders ?? []).map((order) => numbered(order, ['ticket', 'magic', 'position_id']));
  return {
    data,
    has_more: !!response.has_more,
    next_cursor: response.next_cursor || null,
    accounts: (response.accounts ?? []).map((account) => ({
      account_id: account.account_id,
      status: account.status,
      message: account.message,
    })),
  };
}

/** GET /v1/history/deals and /v1/history/orders: the accounts' trade history merged newest first, with a cursor. */
export async function registerHistoryRoutes(app: GatewayApp, dependencies: GatewayDependencies): Promise<void> {
  const deadlineMs = dependencies.config.READ_DEADLINE_MS + readCallMarginMs;
  for (const [kind, schema, summary] of [
    ['deals', DealsPage, 'List deals across accounts, newest first'],
    ['orders', OrdersPage, 'List history orders across accounts, newest first'],
  ] as const) {
    app.get(
      `/v1/history/${kind}`,
      {
        schema: {
          tags: ['history'],
          summary,
          description: `The ${kind} of up to ${accountsPerReadMax} accounts between \`from\` and \`to\` (at most 90 days), read from each account's terminal at once and merged newest first, a page at a time: while \`has_more\`, ask again with \`starting_after\` set to \`next_cursor\`. Paging neither skips nor repeats an item, whatever the accounts trade meanwhile. An account that cannot be read is reported in \`accounts\` and left out of the page. MT4 has no deals: an MT4 order gives an \`in\` deal when it opened and an \`out\` deal when it closed. Works with a read-only key.`,
          querystring: HistoryQuery,
          response: { 200: schema, ...errorResponses(400, 404) } as Record<number, TSchema>,
        },
      },
      async (request) => {
        const query = request.query as Static<typeof HistoryQuery>;
        const response = await dependencies.clients.execution.call(
          'ListHistory',
          {
            customer_id: principalOf(request).customer_id,
            kind,
            account_ids: query.account_id ?? [],
            ...(query.from !== undefined ? { from_unix_ms: Date.parse(query.from) } : {}),
            ...(query.to !== undefined ? { to_unix_ms: Date.parse(query.to) } : {}),
            symbol: query.symbol ?? '',
            limit: query.limit ?? 0,
            starting_after: query.starting_after ?? '',
          },
          { deadlineMs },
        );
        return page(response, kind);
      },
    );
  }
}
