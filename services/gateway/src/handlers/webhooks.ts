import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { customerEventIdPattern, customerEventTypes, recordedEventTypes } from '@mtx/shared/customer-events';
import type { Endpoint__Output } from '@mtx/shared/generated/proto/mtx/notifications/v1/Endpoint';
import { principalOf, type GatewayApp, type GatewayDependencies } from '../context';
import { errorResponses, stringEnum } from './schemas';

const eventTypeNames = `${customerEventTypes.map((type) => `\`${type}\``).join(', ')}`;

const EventType = stringEnum(recordedEventTypes, { description: `One of ${eventTypeNames}, or \`ping\` (test sends).` });

const CreateEndpointBody = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description:
        'Where events are POSTed: http or https, no credentials in it, and a public address (private, loopback and link-local targets are refused).',
      example: 'https://example.com/hooks/mtx',
    }),
    enabled_events: Type.Optional(
      Type.Array(stringEnum([...customerEventTypes, '*'] as const), {
        minItems: 1,
        maxItems: customerEventTypes.length + 1,
        description: `The event types to receive, or \`["*"]\` (the default) for every type: ${eventTypeNames}.`,
      }),
    ),
    description: Type.Optional(Type.String({ maxLength: 200, description: 'Your note on what the endpoint is for.' })),
  },
  { additionalProperties: false },
);

const endpointProperties = {
  id: Type.String({ description: 'The endpoint, `we_…`.' }),
  url: Type.String({ description: 'Where events are POSTed.' }),
  enabled_events: Type.Array(Type.String(), { description: 'The event types it receives (`*`: all).' }),
  description: Type.String({ description: 'Your note.' }),
  status: Type.String({
    description: '`enabled`, or `disabled` (deleted, or its deliveries failed for three days; `disabled_reason` says which).',
  }),
  disabled_reason: Type.String({ description: 'Why it is disabled; empty when enabled.' }),
  created_at: Type.String({ format: 'date-time', description: 'When it was created.' }),
};

const Endpoint = Type.Object(endpointProperties, { additionalProperties: false });

const CreatedEndpoint = Type.Object(
  {
    ...endpointProperties,
    secret: Type.String({
      description:
        'The signing secret, `whsec_…`, shown only in this answer. Each delivery carries `Mtx-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" with this secret>`.',
    }),
  },
  { additionalProperties: false },
);

const DeletedEndpoint = Type.Object(
  { ...endpointProperties, deleted: Type.Boolean({ description: 'Always true.' }) },
  { additionalProperties: false },
);

const EndpointList = Type.Object(
  {
    data: Type.Array(Endpoint, { description: 'Every endpoint not deleted, oldest first.' }),
    has_more: Type.Boolean({ description: 'Always false: a customer has at most 16 endpoints.' }),
  },
  { additionalProperties: false },
);

const EventsQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'Events per page, 1 to 100 (default 10).' })),
    starting_after: Type.Optional(
      Type.String({
        pattern: customerEventIdPattern.source,
        description: 'An event id from the previous page (its last): the page continues after it.',
      }),
    ),
    type: Type.Optional(EventType),
  },
  { additionalProperties: false },
);

const Event = Type.Object(
  {
    id: Type.String({ description: 'The event, `evt_…`: the same in every delivery of it, so receivers dedupe on it.' }),
    type: Type.String({ description: `${eventTypeNames}.` }),
    created: Type.Integer({ description: 'When it happened, unix seconds.' }),
    data: Type.Unsafe<Record<string, unknown>>({
      type: 'object',
      additionalProperties: true,
      description:
        'What happened: `ping` {endpoint_id, url}; `batch.settled` {batch_id, kind, summary}; `topup.credited` {topup_id, amount_eur_cents, status}; `topup.expired` {topup_id}; `seat.past_due` and `seat.suspended` {account_id, seat_id, period_end}; `wallet.low_balance` {balance_eur_cents, due_next_7_days_eur_cents}.',
    }),
  },
  { additionalProperties: false },
);

const TestSend = Type.Object(
  {
    id: Type.String({ description: 'The `ping` event sent, `evt_…`: in GET /v1/events and in the delivery.' }),
    type: Type.Literal('ping', { description: 'Always `ping`.' }),
    endpoint_id: Type.String({ description: 'The endpoint it goes to, and no other.' }),
    created: Type.Integer({ description: 'When it was sent, unix seconds.' }),
  },
  { additionalProperties: false },
);

const EndpointParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 80 }) }, { additionalProperties: false });

const EventList = Type.Object(
  {
    data: Type.Array(Event, { description: 'Newest first, at most 30 days back.' }),
    has_more: Type.Boolean({ description: 'More events follow: ask again with starting_after set to the last id.' }),
  },
  { additionalProperties: false },
);

function endpointOf(endpoint: Endpoint__Output): Static<typeof Endpoint> {
  return {
    id: endpoint.id,
    url: endpoint.url,
    enabled_events: endpoint.enabled_events ?? [],
    description: endpoint.description ?? '',
    status: endpoint.status,
    disabled_reason: endpoint.disabled_reason ?? '',
    created_at: endpoint.created_at,
  };
}

export async function registerWebhookRoutes(app: GatewayApp, dependencies: GatewayDependencies): Promise<void> {
  const deadlineMs = dependencies.config.GRPC_DEADLINE_MS;
  const notifications = dependencies.clients.notifications;

  app.post(
    '/v1/webhook_endpoints',
    {
      schema: {
        tags: ['events'],
        summary: 'Create a webhook endpoint',
        description:
          "Events of the types chosen are POSTed to the URL as they happen, from the customer's next event on: signed with the secret in this answer (shown only here), at least once and in order, and retried with exponential backoff and jitter for three days, after which the endpoint is disabled. Receivers answer 2xx quickly and dedupe on the event id. 400 for a URL that is not http(s) or not public; 409 `conflict` past 16 endpoints.",
        body: CreateEndpointBody,
        response: { 201: CreatedEndpoint, ...errorResponses(400, 403, 409) } as Record<number, TSchema>,
      },
    },
    async (request, reply) => {
      const body = request.body as Static<typeof CreateEndpointBody>;
      const endpoint = await notifications.call(
        'CreateEndpoint',
        {
          customer_id: principalOf(request).customer_id,
          url: body.url,
          enabled_events: body.enabled_events ?? ['*'],
          description: body.description ?? '',
        },
        // The URL's host is resolved before the endpoint is made.
        { deadlineMs: deadlineMs * 2 },
      );
      return reply.status(201).send({ ...endpointOf(endpoint), secret: endpoint.secret });
    },
  );

  app.get(
    '/v1/webhook_endpoints',
    {
      schema: {
        tags: ['events'],
        summary: 'List webhook endpoints',
        description: 'Every endpoint not deleted, with its status; secrets are never shown again. Works with a read-only key.',
        response: { 200: EndpointList, ...errorResponses() } as Record<number, TSchema>,
      },
    },
    async (request) => {
      const answer = await notifications.call('ListEndpoints', { customer_id: principalOf(request).customer_id }, { deadlineMs });
      return { data: (answer.data ?? []).map(endpointOf), has_more: false };
    },
  );

  app.delete(
    '/v1/webhook_endpoints/:id',
    {
      schema: {
        tags: ['events'],
        summary: 'Delete a webhook endpoint',
        description: "Stops its deliveries at once. 404 for an unknown endpoint or another customer's.",
        params: EndpointParams,
        response: { 200: DeletedEndpoint, ...errorResponses(400, 403, 404) } as Record<number, TSchema>,
      },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      const endpoint = await notifications.call(
        'DeleteEndpoint',
        { customer_id: principalOf(request).customer_id, endpoint_id: id },
        { deadlineMs },
      );
      return { ...endpointOf(endpoint), deleted: true };
    },
  );

  app.post(
    '/v1/webhook_endpoints/:id/test',
    {
      schema: {
        tags: ['events'],
        summary: 'Send a test event to a webhook endpoint',
        description:
          "Sends a `ping` event (data: {endpoint_id, url}) to this endpoint only, whatever types it receives, through the normal delivery path: signed like every delivery, retried the same way, after the endpoint's earlier events, and listed in GET /v1/events. 202 once it is queued. 404 for an unknown endpoint or another customer's; 409 `conflict` for a disabled one.",
        params: EndpointParams,
        response: { 202: TestSend, ...errorResponses(400, 403, 404, 409) } as Record<number, TSchema>,
      },
    },
    async (request, reply) => {
      const { id } = request.params as Static<typeof EndpointParams>;
      const sent = await notifications.call(
        'TestEndpoint',
        { customer_id: principalOf(request).customer_id, endpoint_id: id },
        { deadlineMs },
      );
      return reply.status(202).send({ id: sent.event_id, type: 'ping', endpoint_id: sent.endpoint_id, created: Number(sent.created) });
    },
  );

  app.get(
    '/v1/events',
    {
      schema: {
        tags: ['events'],
        summary: 'List events of the last 30 days',
        description:
          'Every event recorded for the customer, newest first, whether or not an endpoint received it: for replay after an outage, or for polling instead of webhooks. Works with a read-only key.',
        querystring: EventsQuery,
        response: { 200: EventList, ...errorResponses(400) } as Record<number, TSchema>,
      },
    },
    async (request) => {
      const query = request.query as Static<typeof EventsQuery>;
      const page = await notifications.call(
        'ListEvents',
        {
          customer_id: principalOf(request).customer_id,
          limit: query.limit ?? 10,
          starting_after: query.starting_after ?? '',
          type: query.type ?? '',
        },
        { deadlineMs },
      );
      return {
        data: (page.data ?? []).map((event) => ({
          id: event.id,
          type: event.type,
          created: Number(event.created),
          data: JSON.parse(event.data_json) as Record<string, unknown>,
        })),
        has_more: !!page.has_more,
      };
    },
  );
}
