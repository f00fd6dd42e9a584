import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { principalOf, type GatewayApp, type GatewayDependencies } from '../context';
import { errorResponses, terminalText } from './schemas';
import type { Account__Output } from '@mtx/shared/generated/proto/mtx/execution/v1/Account';

const Account = Type.Object(
  {
    id: Type.String({ description: 'Account id, used as account_id in order batches.', example: 'acc_3Xk9pQ2mZr7TnB4w' }),
    platform: Type.String({ description: '`mt4` or `mt5`.', example: 'mt5' }),
    server: Type.String({ description: 'Trade server of the broker.', example: 'BetaMarkets-Server' }),
    login: Type.String({ description: 'Trading account number at the broker.', example: '50012345' }),
    label: Type.String({ description: 'Your name for the account.' }),
    status: Type.String({
      description:
        "Status of the account's seat: `active`, `past_due` (renewal unpaid, in grace) or `suspended` (orders are refused until the balance pays the seat).",
      example: 'active',
    }),
    symbol_suffix: Type.String({
      description:
        'Suffix the broker adds to symbol names on this server ("" for none), e.g. `.xx`, `m`, `-ecn`: EURUSD is traded there as EURUSD<suffix>.',
      example: '.xx',
    }),
    margin_mode: Type.String({ description: '`hedging` or `netting` (MT5); MT4 accounts are hedging.', example: 'netting' }),
    bonus_seat: Type.Boolean({ description: 'The account uses an operator-granted seat that is never billed.' }),
    created_at: Type.String({ format: 'date-time', description: 'When the account was connected.' }),
  },
  { additionalProperties: false },
);

const AccountList = Type.Object(
  { accounts: Type.Array(Account, { description: 'Every connected account, oldest first.' }) },
  { additionalProperties: false },
);

const CreateAccountBody = Type.Object(
  {
    platform: Type.Union([Type.Literal('mt4'), Type.Literal('mt5')], { description: 'Platform of the trade server.' }),
    server: Type.String({
      ...terminalText,
      minLength: 1,
      maxLength: 100,
      description: 'Trade server name as the broker gives it.',
      example: 'BetaMarkets-Server',
    }),
    login: Type.String({
      minLength: 1,
      maxLength: 32,
      pattern: '^[0-9A-Za-z_-]+$',
      description: 'Trading account number.',
      example: '50012345',
    }),
    password: Type.String({
      ...terminalText,
      minLength: 1,
      maxLength: 128,
      description: 'Trading password. Checked on the trade server, stored encrypted, never returned or logged.',
    }),
    label: Type.Optional(Type.String({ maxLength: 100, description: 'Your name for the account.' })),
  },
  { additionalProperties: false },
);

const DeletedAccount = Type.Object(
  { ...Account.properties, deleted: Type.Boolean({ description: 'Always true.' }) },
  { additionalProperties: false },
);

function accountOf(account: Account__Output): Static<typeof Account> {
  return {
    id: account.id,
    platform: account.platform,
    server: account.server,
    login: account.login,
    label: account.label ?? '',
    status: account.status,
    symbol_suffix: account.symbol_suffix ?? '',
    margin_mode: account.margin_mode ?? '',
    bonus_seat: !!account.bonus_seat,
    created_at: account.created_at,
  };
}

export async function registerAccountsRoutes(app: GatewayApp, dependencies: GatewayDependencies): Promise<void> {
  const deadlineMs = dependencies.config.GRPC_DEADLINE_MS;

  app.get(
    '/v1/accounts',
    {
      schema: {
        tags: ['accounts'],
        summary: 'List connected trading accounts',
        description: 'Every MT4 and MT5 account the customer has connected, with the symbol suffix of its broker server.',
        response: { 200: AccountList, ...errorResponses() } as Record<number, TSchema>,
      },
    },
    async (request) => {
      const response = await dependencies.clients.execution.call(
        'ListAccounts',
        { customer_id: principalOf(request).customer_id },
        { deadlineMs },
      );
      return { accounts: (response.accounts ?? []).map(accountOf) };
    },
  );

  app.post(
    '/v1/accounts',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Connect a trading account',
        description:
          'Checks the login on the trade server through a terminal, then takes a seat: a free paid slot, or a new seat bought from the balance (EUR 12 a month; 402 `insufficient_balance` when it cannot pay). 400 for bad credentials or an unknown server, 409 `conflict` when the login is already connected, 503 when no terminal can check it now.',
        body: CreateAccountBody,
        response: { 201: Account, ...errorResponses(400, 402, 403, 409) } as Record<number, TSchema>,
      },
    },
    async (request, reply) => {
      const body = request.body as Static<typeof CreateAccountBody>;
      const account = await dependencies.clients.execution.call(
        'CreateAccount',
        {
          customer_id: principalOf(request).customer_id,
          platform: body.platform,
          server: body.server,
          login: body.login,
          password: body.password,
          label: body.label ?? '',
          bonus_seat: false,
        },
        // The login check and the seat purchase are two calls behind this one.
        { deadlineMs: deadlineMs * 2 },
      );
      return reply.status(201).send(accountOf(account));
    },
  );

  app.delete(
    '/v1/accounts/:account_id',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Disconnect a trading account',
        description:
          "Removes the account; its seat stays paid until its date and is then released unbilled. Stored batches stay readable. 404 for an unknown account or another customer's.",
        params: Type.Object({ account_id: Type.String({ minLength: 1, maxLength: 80 }) }),
        response: { 200: DeletedAccount, ...errorResponses(400, 403, 404) } as Record<number, TSchema>,
      },
    },
    async (request) => {
      const { account_id } = request.params as { account_id: string };
      const account = await dependencies.clients.execution.call(
        'DeleteAccount',
        { customer_id: principalOf(request).customer_id, account_id },
        { deadlineMs: deadlineMs * 2 },
      );
      return { ...accountOf(account), deleted: true };
    },
  );
}
