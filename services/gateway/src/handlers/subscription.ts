import { Type, type Static } from '@sinclair/typebox';
import type { GatewayApp, GatewayDependencies } from '../context';
import { principalOf } from '../context';
import { errorResponses, rateLimitHeaders } from './schemas';
import { renderSubscription, Subscription } from './subscription-schemas';
import { sendSerialized, serializableAnswer } from './serialized-answer';

const UpdateSubscriptionBody = Type.Object(
  {
    cancel_at_period_end: Type.Boolean({
      description:
        'true stops every renewal: each seat and server stays until its own paid-until date and then ends (connected accounts then stop trading). false resumes renewals for whatever has not ended yet.',
      example: true,
    }),
  },
  { additionalProperties: false },
);

export async function registerSubscriptionRoutes(app: GatewayApp, dependencies: GatewayDependencies): Promise<void> {
  const deadlineMs = dependencies.config.GRPC_DEADLINE_MS;

  app.get(
    '/v1/subscription',
    {
      schema: {
        tags: ['subscription'],
        summary: 'Get the subscription',
        description:
          'The per-account plan: every seat with its own paid-until date and status, what is in use, the earliest period end, any grace, and a summary of the balance against what it owes next. Seats cost EUR 12 per connected account per month and renew from the balance one calendar month after purchase. Works with a read-only key.',
        response: { 200: { ...Subscription, description: 'The subscription.', headers: rateLimitHeaders }, ...errorResponses() },
      },
    },
    async (request, reply) => {
      const customerId = principalOf(request).customer_id;
      // From the read model while no announcement (billing's revision, a wallet movement) or write of this
      // gateway has touched the customer, for at most SUBSCRIPTION_READ_FRESH_MS (docs/performance.md, "Renewal").
      const answer = await dependencies.readModels.subscription.read(customerId, async () =>
        serializableAnswer(
          renderSubscription(await dependencies.clients.billing.call('GetSubscription', { customer_id: customerId }, { deadlineMs })),
        ),
      );
      return sendSerialized(reply, answer);
    },
  );

  app.patch(
    '/v1/subscription',
    {
      schema: {
        tags: ['subscription'],
        summary: 'Cancel or resume renewals',
        description:
          'Sets `cancel_at_period_end`. While true nothing is charged any more: each seat and server ends at its own paid-until date (an item already past due ends now). Setting it back to false before an item ends resumes its renewals. Needs the full key. Returns the updated subscription.',
        body: UpdateSubscriptionBody,
        response: {
          200: { ...Subscription, description: 'The updated subscription.', headers: rateLimitHeaders },
          ...errorResponses(400, 403),
        },
      },
    },
    async (request) => {
      const customerId = principalOf(request).customer_id;
      const body = request.body as Static<typeof UpdateSubscriptionBody>;
      return renderSubscription(
        await dependencies.clients.billing.call(
          'UpdateSubscription',
          { customer_id: customerId, cancel_at_period_end: body.cancel_at_period_end },
          { deadlineMs },
        ),
      );
    },
  );
}
