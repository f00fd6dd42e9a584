import { Type, type Static } from '@sinclair/typebox';
import { parseServerPlans } from '@mtx/shared/server-plans';
import { principalOf, type GatewayApp, type GatewayDependencies } from '../context';
import { errorResponses, rateLimitHeaders } from './schemas';

export const Server = Type.Object(
  {
    id: Type.String({ description: 'Server identifier.', example: 'srv_Jx81QmZr0Pq2Lk5sVb9c' }),
    plan: Type.String({ description: 'Plan, from GET /v1/servers/plans.', example: 'vps-small' }),
    label: Type.String({ description: 'Your name for it.', example: 'London VPS' }),
    price_eur_cents: Type.Integer({ description: 'Monthly price charged to the balance at each renewal.', example: 1500 }),
    status: Type.Union([Type.Literal('active'), Type.Literal('past_due'), Type.Literal('suspended')], {
      description:
        '`active`: paid. `past_due`: the renewal could not be paid and is retried on every top-up until `grace_ends_at`. `suspended`: the grace passed unpaid.',
      example: 'active',
    }),
    paid_until: Type.String({
      format: 'date-time',
      description: 'Paid-until date; the server renews from the balance on this date, one calendar month after purchase, day kept.',
      example: '2027-04-17T09:30:00.000Z',
    }),
    cancel_at_period_end: Type.Boolean({
      description: 'True after DELETE (or while the subscription is cancelled): the server ends at `paid_until` instead of renewing.',
      example: false,
    }),
    grace_ends_at: Type.Unsafe<string | null>({
      type: 'string',
      format: 'date-time',
      nullable: true,
      description: 'While past due: when it is suspended. Null otherwise.',
      example: null,
    }),
    created_at: Type.String({
      format: 'date-time',
      description: 'Purchase time; the renewal day is taken from it.',
      example: '2027-03-17T09:30:00.000Z',
    }),
  },
  { additionalProperties: false },
);

const ServerList = Type.Object(
  { servers: Type.Array(Server, { description: 'Servers held (not yet ended), in purchase order.' }) },
  { additionalProperties: false },
);

const ServerPlan = Type.Object(
  {
    plan: Type.String({ description: 'Plan name to pass to POST /v1/servers.', example: 'vps-small' }),
    price_eur_cents: Type.Integer({ description: 'Monthly price in EUR cents.', example: 1500 }),
  },
  { additionalProperties: false },
);

/** The body of POST /v1/servers; the plans are a closed set (SERVER_PLANS), so the schema lists them. */
function createServerBody(planNames: string[]) {
  return Type.Object(
    {
      plan: Type.Unsafe<string>({
        type: 'string',
        enum: planNames,
        description: 'One of the plans of GET /v1/servers/plans.',
        example: planNames[0],
      }),
      label: Type.String({
        minLength: 1,
        maxLength: 64,
        pattern: '\\S',
        description: 'Your name for the server (1-64 characters).',
        example: 'London VPS',
      }),
    },
    { additionalProperties: false },
  );
}

const ServerParams = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 128, description: 'Server identifier.' }) },
  { additionalProperties: false },
);

interface ServerMessage {
  id: string;
  plan: string;
  label: string;
  price_eur_cents: number;
  status: string;
  paid_until: string;
  cancel_at_period_end: boolean;
  grace_ends_at?: string;
  created_at: string;
}

function renderServer(message: ServerMessage): Static<typeof Server> {
  return {
    id: message.id,
    plan: message.plan,
    label: message.label,
    price_eur_cents: Number(message.price_eur_cents),
    status: message.status as Static<typeof Server>['status'],
    paid_until: message.paid_until,
    cancel_at_period_end: message.cancel_at_period_end,
    grace_ends_at: message.grace_ends_at ?? null,
    created_at: message.created_at,
  };
}

export async function registerServersRoutes(app: GatewayApp, dependencies: GatewayDependencies): Promise<void> {
  const CreateServerBody = createServerBody([...parseServerPlans(dependencies.config.SERVER_PLANS).keys()]);
  const deadlineMs = dependencies.config.GRPC_DEADLINE_MS;
  const billing = dependencies.clients.billing;

  app.get(
    '/v1/servers/plans',
    {
      schema: {
        tags: ['servers'],
        summary: 'List server plans',
        description: 'The private-server plans on offer and their monthly prices.',
        response: {
          200: {
            ...Type.Object(
              { plans: Type.Array(ServerPlan, { description: 'Every plan a private server can be bought on, with its monthly price.' }) },
              { additionalProperties: false },
            ),
            description: 'The plans.',
            headers: rateLimitHeaders,
          },
          ...errorResponses(),
        },
      },
    },
    async () => {
      const response = await billing.call('ListServerPlans', {}, { deadlineMs });
      return { plans: (response.plans ?? []).map((plan) => ({ plan: plan.plan, price_eur_cents: Number(plan.price_eur_cents) })) };
    },
  );

  app.get(
    '/v1/servers',
    {
      schema: {
        tags: ['servers'],
        summary: 'List private servers',
        description:
          'Every private server the customer holds, including those whose renewal was stopped and that have not reached their date yet. Works with a read-only key.',
        response: { 200: { ...ServerList, description: 'The servers.', headers: rateLimitHeaders }, ...errorResponses() },
      },
    },
    async (request) => {
      const response = await billing.call('ListServers', { customer_id: principalOf(request).customer_id }, { deadlineMs });
      return { servers: (response.servers ?? []).map(renderServer) };
    },
  );

  app.post(
    '/v1/servers',
    {
      schema: {
        tags: ['servers'],
        summary: 'Buy a private server',
        description:
          'Buys a server from the balance: the first month is charged now (402 `insufficient_balance` if the balance cannot pay it, and nothing is bought), and it renews from the balance one calendar month later, on the same day, until DELETE. An optional `Idempotency-Key` header makes a retry safe: the same key and body return the original answer and buy nothing twice. Needs the full key.',
        headers: Type.Object({
          'idempotency-key': Type.Optional(
            Type.String({ description: 'Up to 128 printable ASCII characters; one per purchase, reused on every retry of it.' }),
          ),
        }),
        body: CreateServerBody,
        response: {
          201: { ...Server, description: 'The server, paid until one month from now.', headers: rateLimitHeaders },
          ...errorResponses(400, 402, 403, 409),
        },
      },
    },
    async (request, reply) => {
      const customerId = principalOf(request).customer_id;
      const body = request.body as { plan: string; label: string };
      // A keyed purchase names its server after the id its key record holds, so a retry after a lost answer
      // finishes that purchase instead of buying a second server.
      const buy = async (serverId: string | undefined) => ({
        statusCode: 201,
        body: renderServer(
          await billing.call(
            'CreateServer',
            { customer_id: customerId, plan: body.plan, label: body.label, ...(serverId ? { server_id: serverId } : {}) },
            { deadlineMs },
          ),
        ),
      });
      const outcome = await dependencies.idempotency.runWhenKeyed(
        request.headers['idempotency-key'],
        { customerId, scope: 'servers', body, resourcePrefix: 'srv' },
        buy,
      );
      return reply.status(outcome.statusCode as 201).send(outcome.body);
    },
  );

  app.delete(
    '/v1/servers/:id',
    {
      schema: {
        tags: ['servers'],
        summary: 'Stop renewing a private server',
        description:
          "Stops the renewal: the server stays until its `paid_until` date and then ends; nothing more is charged. Repeating it is harmless. 404 for an unknown server or another customer's. Needs the full key.",
        params: ServerParams,
        response: {
          200: { ...Server, description: 'The server, with `cancel_at_period_end` true.', headers: rateLimitHeaders },
          ...errorResponses(400, 403, 404),
        },
      },
    },
    async (request) => {
      const { id } = request.params as Static<typeof ServerParams>;
      return renderServer(
        await billing.call('CancelServer', { customer_id: principalOf(request).customer_id, server_id: id }, { deadlineMs }),
      );
    },
  );
}
