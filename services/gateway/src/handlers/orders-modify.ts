import type { Static, TSchema } from '@sinclair/typebox';
import type { ModifyAccountResult__Output } from '@mtx/shared/generated/proto/mtx/execution/v1/ModifyAccountResult';
import { principalOf, type GatewayApp, type GatewayDependencies } from '../context';
import { withParamAsSent } from '../domain/param-as-sent';
import { ModifyOrdersBody, ModifyOrdersResponse, modifyChangeProperties, modifySelectorProperties } from './modify-schemas';
import { pick, selectorRequest } from './orders-results';
import { idempotencyHeader } from './orders-schemas';
import { errorResponses, rateLimitHeaders } from './schemas';

/** Margin over the execution deadline for the gRPC call: validation, the lookup and answering. */
const executionCallMarginMs = 3_000;
const selectorNames = Object.keys(modifySelectorProperties);
const changeNames = Object.keys(modifyChangeProperties);

function accountResult(account: ModifyAccountResult__Output) {
  return {
    account_id: account.account_id,
    platform: account.platform,
    status: account.status,
    matched: account.matched,
    modified: account.modified,
    message: account.message,
    latency_ms: Number(account.latency_ms),
    results: (account.results ?? []).map((ticket) => ({
      ticket: Number(ticket.ticket),
      symbol: ticket.symbol,
      type: ticket.type,
      kind: ticket.kind,
      status: ticket.status,
      ...(ticket.retcode != null ? { retcode: ticket.retcode, retcode_description: ticket.retcode_description ?? '' } : {}),
      stop_loss: ticket.stop_loss,
      take_profit: ticket.take_profit,
      price: ticket.price,
      message: ticket.message,
    })),
  };
}

/** POST /v1/orders/modify: the close's selector, caps and Idempotency-Key, with a change instead of a close. */
export async function registerModifyRoute(app: GatewayApp, dependencies: GatewayDependencies): Promise<void> {
  const deadlineMs = dependencies.config.EXECUTION_DEADLINE_MS * 2 + executionCallMarginMs;
  app.post(
    '/v1/orders/modify',
    {
      config: { rateLimit: 'execution' },
      schema: {
        tags: ['orders'],
        summary: 'Move stops, or a pending order’s price and expiration, by selector',
        description:
          'Selects exactly as POST /v1/orders/close does (per account a selector or tickets, at most 20 accounts, at most 20 matches per account: further matches come back `skipped`), and sets on every match the fields given: `stop_loss` and `take_profit` on positions and pending orders, `price` and `expiration` on pending orders only. A field left out is left as it is; a stop of 0 removes it; a body that changes nothing is 400. Each ticket is modified at most once per request, whatever fails: an account without an answer is `unknown` (GET /v1/positions shows the values), and an Idempotency-Key retry never sends again. A full key only; counts against the execution rate limit (60 requests per minute with POST /v1/orders and /v1/orders/close).',
        headers: idempotencyHeader,
        body: ModifyOrdersBody,
        response: { 200: { ...ModifyOrdersResponse, headers: rateLimitHeaders }, ...errorResponses(400, 403, 409) } as Record<
          number,
          TSchema
        >,
      },
    },
    async (request, reply) => {
      const customerId = principalOf(request).customer_id;
      const body = request.body as Static<typeof ModifyOrdersBody>;
      const selector = selectorRequest(body, selectorNames);
      const outcome = await dependencies.idempotency.runWhenKeyed(
        request.headers['idempotency-key'],
        { customerId, scope: 'orders.modify', body, resourcePrefix: 'bat' },
        async (batchId) => {
          const response = await dependencies.clients.execution
            .call(
              'ModifyOrders',
              {
                customer_id: customerId,
                ...selector,
                change: pick(body as Record<string, unknown>, changeNames),
                ...(batchId ? { batch_id: batchId } : {}),
              },
              { deadlineMs },
            )
            .catch((error: unknown) => {
              throw withParamAsSent(error, body, 'accounts');
            });
          const summary = response.summary;
          return {
            statusCode: 200,
            body: {
              batch_id: response.batch_id,
              idempotent_replay: false,
              summary: {
                accounts: summary?.accounts ?? 0,
                matched: summary?.matched ?? 0,
                modified: summary?.modified ?? 0,
                failed: summary?.failed ?? 0,
                unknown: summary?.unknown ?? 0,
                accounts_unknown: summary?.accounts_unknown ?? 0,
              },
              results: (response.results ?? []).map(accountResult),
            },
          };
        },
      );
      return reply.status(outcome.statusCode).send(outcome.body);
    },
  );
}
