import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { principalOf, type GatewayApp, type GatewayDependencies } from '../context';
import { withParamAsSent } from '../domain/param-as-sent';
import {
  batchSummaryOf,
  closeAccountResult,
  closeFieldNames,
  closeSummaryNames,
  legResult,
  orderFieldNames,
  pick,
  selectorRequest,
  placeSummaryNames,
  summaryOf,
} from './orders-results';
import {
  BatchListQuery,
  BatchListResponse,
  BatchResponse,
  CloseOrdersBody,
  CloseOrdersResponse,
  idempotencyHeader,
  PlaceOrdersBody,
  PlaceOrdersResponse,
} from './orders-schemas';
import { errorResponses, rateLimitHeaders } from './schemas';

/** Margin over the execution deadline for the gRPC call: validation, reachability pings and storage. */
const executionCallMarginMs = 3_000;

function batchError(statuses: number[]): Record<number, TSchema> {
  return errorResponses(...statuses);
}

export async function registerOrdersRoutes(app: GatewayApp, dependencies: GatewayDependencies): Promise<void> {
  const deadlineMs = dependencies.config.EXECUTION_DEADLINE_MS + executionCallMarginMs;

  app.post(
    '/v1/orders',
    {
      config: { rateLimit: 'execution' },
      schema: {
        tags: ['orders'],
        summary: 'Place orders on several accounts at once',
        description:
          "Validates the whole batch first (any invalid leg rejects all of it with 400 and nothing is sent), then applies each account's pre-trade rules (its settings, GET /v1/accounts/{account_id}/settings: trading_enabled, allowed_symbols, max_volume_per_order, max_open_positions, max_total_volume; and the legs' `symbol_match: base`, `sizing` and `check_margin`), then sends every account's remaining legs to its own terminal concurrently and returns one result per leg. A leg a rule refuses is `rejected` with the rule's TRADE_RETCODE_* and a message naming it, and is never sent. Per-leg failures are not HTTP errors: they come back in `results` and `summary`. A leg without a reply by the deadline is `unknown`, never `rejected`; the stored batch (GET /v1/orders/batches/{batch_id}) is updated by late replies and by reconciliation with the broker. 60 requests per minute per customer, shared with POST /v1/orders/close.",
        headers: idempotencyHeader,
        body: PlaceOrdersBody,
        response: { 200: { ...PlaceOrdersResponse, headers: rateLimitHeaders }, ...batchError([400, 403, 409]) } as Record<number, TSchema>,
      },
    },
    async (request, reply) => {
      const customerId = principalOf(request).customer_id;
      const body = request.body as Static<typeof PlaceOrdersBody>;
      const outcome = await dependencies.idempotency.runWhenKeyed(
        request.headers['idempotency-key'],
        { customerId, scope: 'orders', body, resourcePrefix: 'bat' },
        async (batchId) => {
          const response = await dependencies.clients.execution
            .call(
              'PlaceOrders',
              {
                customer_id: customerId,
                defaults: body.defaults ? pick(body.defaults, orderFieldNames) : undefined,
                orders: body.orders.map((order) => ({
                  account_id: order.account_id,
                  fields: pick(order as Record<string, unknown>, orderFieldNames),
                })),
                ...(batchId ? { batch_id: batchId } : {}),
              },
              { deadlineMs },
            )
            .catch((error: unknown) => {
              throw withParamAsSent(error, body, 'orders');
            });
          return {
            statusCode: 200,
            body: {
              batch_id: response.batch_id,
              idempotent_replay: false,
              summary: summaryOf(response.summary, placeSummaryNames),
              results: (response.results ?? []).map(legResult),
            },
          };
        },
      );
      return reply.status(outcome.statusCode).send(outcome.body);
    },
  );

  app.post(
    '/v1/orders/close',
    {
      config: { rateLimit: 'execution' },
      schema: {
        tags: ['orders'],
        summary: 'Close positions or delete pending orders by selector',
        description:
          'For each account (at most 20): one lookup of its open orders, then one close per match (at most 20 per account; further matches come back `skipped`). An account gives either a selector (symbol, symbol_match, side, kind, magic) or explicit tickets. `symbol` is required per account or in defaults unless tickets are given (400 `invalid_request`, param `symbol`). Selector fields at the top level act as defaults. Idempotency-Key works as on POST /v1/orders.',
        headers: idempotencyHeader,
        body: CloseOrdersBody,
        response: { 200: { ...CloseOrdersResponse, headers: rateLimitHeaders }, ...batchError([400, 403, 409]) } as Record<number, TSchema>,
      },
    },
    async (request, reply) => {
      const customerId = principalOf(request).customer_id;
      const body = request.body as Static<typeof CloseOrdersBody>;
      const selector = selectorRequest(body, closeFieldNames);
      const outcome = await dependencies.idempotency.runWhenKeyed(
        request.headers['idempotency-key'],
        { customerId, scope: 'orders.close', body, resourcePrefix: 'bat' },
        async (batchId) => {
          const response = await dependencies.clients.execution
            .call(
              'CloseOrders',
              {
                customer_id: customerId,
                ...selector,
                require_reachable: body.require_reachable ?? false,
                ...(batchId ? { batch_id: batchId } : {}),
              },
              { deadlineMs: deadlineMs + dependencies.config.EXECUTION_DEADLINE_MS },
            )
            .catch((error: unknown) => {
              throw withParamAsSent(error, body, 'accounts');
            });
          return {
            statusCode: 200,
            body: {
              batch_id: response.batch_id,
              idempotent_replay: false,
              summary: summaryOf(response.summary, closeSummaryNames),
              results: (response.results ?? []).map(closeAccountResult),
            },
          };
        },
      );
      return reply.status(outcome.statusCode).send(outcome.body);
    },
  );

  app.get(
    '/v1/orders/batches',
    {
      schema: {
        tags: ['orders'],
        summary: 'List stored batches, newest first',
        description:
          "The customer's batches of both kinds, newest first, a page at a time: `has_more` says whether to ask again with `starting_after` set to the last `batch_id`. Each comes with its summary from the latest outcomes. Filters: `kind`, and `created_gte` / `created_lt` on the creation time. 400 when `starting_after` is not one of the customer's batches. Works with a read-only key.",
        querystring: BatchListQuery,
        response: { 200: BatchListResponse, ...batchError([400]) } as Record<number, TSchema>,
      },
    },
    async (request) => {
      const query = request.query as Static<typeof BatchListQuery>;
      const customerId = principalOf(request).customer_id;
      const page = await dependencies.clients.execution.call(
        'ListBatches',
        {
          customer_id: customerId,
          limit: query.limit ?? 10,
          starting_after: query.starting_after ?? '',
          kind: query.kind ?? '',
          ...(query.created_gte !== undefined ? { created_gte_unix_ms: Date.parse(query.created_gte) } : {}),
          ...(query.created_lt !== undefined ? { created_lt_unix_ms: Date.parse(query.created_lt) } : {}),
        },
        { deadlineMs: dependencies.config.GRPC_DEADLINE_MS },
      );
      return {
        data: (page.data ?? []).map((batch) => ({
          batch_id: batch.batch_id,
          kind: batch.kind,
          created_at: batch.created_at,
          settled: !!batch.settled,
          summary: batchSummaryOf(batch),
        })),
        has_more: !!page.has_more,
      };
    },
  );

  app.get(
    '/v1/orders/batches/:batch_id',
    {
      schema: {
        tags: ['orders'],
        summary: "Read a stored batch with every leg's latest outcome",
        description:
          "The batch as stored: the original results, with legs (or close accounts and tickets) that were `unknown` replaced by what late replies or reconciliation with the broker found. 404 for an unknown batch or another customer's.",
        params: Type.Object({
          batch_id: Type.String({ minLength: 1, maxLength: 80, description: 'batch_id from POST /v1/orders or POST /v1/orders/close.' }),
        }),
        response: { 200: BatchResponse, ...batchError([400, 404]) } as Record<number, TSchema>,
      },
    },
    async (request) => {
      const customerId = principalOf(request).customer_id;
      const { batch_id } = request.params as { batch_id: string };
      const batch = await dependencies.clients.execution.call(
        'GetBatch',
        { customer_id: customerId, batch_id },
        { deadlineMs: dependencies.config.GRPC_DEADLINE_MS },
      );
      const orders = batch.kind === 'orders';
      return {
        batch_id: batch.batch_id,
        kind: batch.kind,
        created_at: batch.created_at,
        settled: !!batch.settled,
        summary: batchSummaryOf(batch),
        results: orders ? (batch.orders ?? []).map(legResult) : (batch.accounts ?? []).map(closeAccountResult),
      };
    },
  );
}
