import { Type, type Static } from '@sinclair/typebox';
import { AppError } from '@mtx/shared/errors';
import { grpc } from '@mtx/shared/grpc';
import type { GatewayApp, GatewayDependencies } from '../context';
import { principalOf } from '../context';
import { errorResponses, rateLimitHeaders } from './schemas';
import { Cents, Timestamp, TopupStatus, UpcomingItem, Wallet, type WalletAnswer } from './wallet-schemas';
import { sendSerialized, serializableAnswer } from './serialized-answer';
import type { Topup__Output } from '@mtx/shared/generated/proto/mtx/payments/v1/Topup';
import { narrowTo } from '../domain/closed-sets';

export const AssetRow = Type.Object(
  {
    asset_code: Type.String({ description: 'Coin code.', example: 'USDT' }),
    asset_name: Type.String({ description: 'Coin name.', example: 'Tether USD' }),
    blockchain_code: Type.String({ description: 'Chain code.', example: 'TRON' }),
    blockchain_name: Type.String({ description: 'Chain name.', example: 'Tron' }),
    is_evm: Type.Boolean({ description: 'Whether the chain is EVM-based.', example: false }),
    is_stable: Type.Boolean({
      description: 'Whether the asset is a stablecoin (its quote barely moves inside the 30-minute window).',
      example: true,
    }),
    amount: Type.String({
      description: 'Decimal amount of the asset the requested size costs now, rounded up to the asset decimals.',
      example: '54.347827',
    }),
    decimals: Type.Integer({ description: 'Decimals of the asset smallest unit.', example: 6 }),
    display_decimals: Type.Integer({ description: 'Decimals to display.', example: 2 }),
    min_amount_eur_cents: Type.Integer({
      minimum: 1000,
      description:
        'The smallest top-up this pair takes now, in EUR cents: the payment provider minimum for the pair, rounded up to the cent, and never below the 1000-cent top-up minimum. A top-up of this size in this pair is accepted; it moves with the rate.',
      example: 1000,
    }),
  },
  { additionalProperties: false },
);

export const Topup = Type.Object(
  {
    id: Type.Integer({ description: 'Top-up identifier.', example: 1042 }),
    status: TopupStatus,
    amount_eur_cents: Cents('Requested size.', 5000),
    credited_eur_cents: Cents(
      'What has actually arrived and been credited; below amount_eur_cents while the payment is short, above it after an over-payment.',
      0,
    ),
    deposit_address: Type.String({
      description: 'Address to send to. Send only this asset, on this chain.',
      example: 'TQ7vM3n9bEw2XkRr4yHs8UfCp5LdJa1GZt',
    }),
    deposit_amount: Type.String({
      description: 'Exact amount to send, in the asset smallest unit (see `decimals` of the asset row).',
      example: '54347827',
    }),
    deposit_amount_decimal: Type.String({ description: 'The same amount as a decimal string.', example: '54.347827' }),
    asset_code: Type.String({ description: 'Asset to send.', example: 'USDT' }),
    blockchain_code: Type.String({ description: 'Chain to send on.', example: 'TRON' }),
    expires_at: Timestamp(
      'End of the 30-minute quote. Coin arriving later is still credited, at the market rate.',
      '2027-03-01T10:30:00.000Z',
    ),
    created_at: Timestamp('When the top-up was created.', '2027-03-01T10:00:00.000Z'),
    is_evm: Type.Boolean({ description: 'Whether a Web3 / wallet-connect payment was asked for.', example: false }),
    payment_uri: Type.Optional(
      Type.String({
        description: 'EIP-681 payment request for a Web3 wallet (present only with `is_evm: true`).',
        example: 'ethereum:0xdac17f958d2ee523a2206206994597c13d831ec7@1/transfer?address=0x5b3e…&uint256=54347827',
      }),
    ),
  },
  { additionalProperties: false },
);

const AssetsQuery = Type.Object(
  {
    amount_eur_cents: Type.Integer({
      minimum: 1000,
      maximum: 50000,
      'x-error-code': 'amount_out_of_range',
      description: 'Top-up size in cents, 1000 to 50000.',
      example: 5000,
    }),
  },
  { additionalProperties: false },
);

const CreateTopupBody = Type.Object(
  {
    amount_eur_cents: Type.Integer({
      minimum: 1000,
      maximum: 50000,
      'x-error-code': 'amount_out_of_range',
      description: 'Top-up size in cents, 1000 to 50000.',
      example: 5000,
    }),
    asset_code: Type.String({ minLength: 1, maxLength: 16, description: 'From an asset row for the same amount.', example: 'USDT' }),
    blockchain_code: Type.String({ minLength: 1, maxLength: 16, description: 'From the same row.', example: 'TRON' }),
    is_evm: Type.Optional(
      Type.Boolean({
        description:
          'Only for Web3 / wallet-connect flows on an EVM chain: adds `payment_uri`. false or omitted gives a plain deposit address.',
        example: false,
      }),
    ),
  },
  { additionalProperties: false },
);

const TopupParams = Type.Object(
  { id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Top-up identifier.', example: 1042 }) },
  { additionalProperties: false },
);

function renderTopup(message: Topup__Output): Static<typeof Topup> {
  return {
    id: Number(message.id),
    status: narrowTo(TopupStatus, message.status, 'top-up status'),
    amount_eur_cents: Number(message.amount_eur_cents),
    credited_eur_cents: Number(message.credited_eur_cents),
    deposit_address: message.deposit_address,
    deposit_amount: message.deposit_amount,
    deposit_amount_decimal: message.deposit_amount_decimal,
    asset_code: message.asset_code,
    blockchain_code: message.blockchain_code,
    expires_at: message.expires_at,
    created_at: message.created_at,
    is_evm: message.is_evm,
    ...(message.payment_uri ? { payment_uri: message.payment_uri } : {}),
  };
}

/** Billing answering UNIMPLEMENTED (not deployed with GetUpcoming yet) means nothing is owed; billing down is a 503. */
function isUnimplemented(error: unknown): boolean {
  return error instanceof AppError && (error.cause as { code?: number } | undefined)?.code === grpc.status.UNIMPLEMENTED;
}

export async function registerWalletRoutes(app: GatewayApp, dependencies: GatewayDependencies): Promise<void> {
  const { clients } = dependencies;
  const deadlineMs = dependencies.config.GRPC_DEADLINE_MS;

  app.get(
    '/v1/wallet',
    {
      schema: {
        tags: ['wallet'],
        summary: 'Get the balance and what it owes',
        description:
          'The prepaid balance, money held beyond the cap, top-ups still awaiting coin, and every charge the balance owes in the next 30 days (seats and private servers together) with the total, the shortfall and whether the balance covers it. Works with a read-only key.',
        response: { 200: { ...Wallet, description: 'The wallet.', headers: rateLimitHeaders }, ...errorResponses() },
      },
    },
    async (request, reply) => {
      const customerId = principalOf(request).customer_id;
      const answer = await dependencies.readModels.wallet.read(customerId, async () => serializableAnswer(await composeWallet(customerId)));
      return sendSerialized(reply, answer);
    },
  );

  /** Balance, pending top-ups and upcoming charges from their three owners, composed into one answer. */
  async function composeWallet(customerId: string): Promise<WalletAnswer> {
    const [wallet, pending, upcoming] = await Promise.all([
      clients.wallet.call('GetWallet', { customer_id: customerId }, { deadlineMs }),
      clients.payments.call('ListPendingTopups', { customer_id: customerId }, { deadlineMs }),
      clients.billing.call('GetUpcoming', { customer_id: customerId }, { deadlineMs }).catch((error: unknown) => {
        if (isUnimplemented(error)) return { items: [] };
        throw error;
      }),
    ]);
    const items = (upcoming.items ?? []).map((item) => ({
      when: item.when,
      amount_eur_cents: Number(item.amount_eur_cents),
      kind: narrowTo(UpcomingItem.properties.kind, item.kind, 'upcoming kind'),
      label: item.label,
    }));
    const upcomingTotal = items.reduce((sum, item) => sum + item.amount_eur_cents, 0);
    const balance = Number(wallet.balance_eur_cents);
    const shortfall = Math.max(0, upcomingTotal - balance);
    return {
      balance_eur_cents: balance,
      held_eur_cents: Number(wallet.held_eur_cents),
      pending_topups: (pending.topups ?? []).map((topup) => ({
        id: Number(topup.id),
        status: narrowTo(TopupStatus, topup.status, 'top-up status'),
        amount_eur_cents: Number(topup.amount_eur_cents),
        credited_eur_cents: Number(topup.credited_eur_cents),
        asset_code: topup.asset_code,
        blockchain_code: topup.blockchain_code,
        expires_at: topup.expires_at,
      })),
      upcoming: items,
      upcoming_total_eur_cents: upcomingTotal,
      shortfall_eur_cents: shortfall,
      covers_upcoming: shortfall === 0,
    };
  }

  app.get(
    '/v1/wallet/assets',
    {
      schema: {
        tags: ['wallet'],
        summary: 'List the assets a top-up can be paid in',
        description:
          'One row per coin-and-chain pair offered for this top-up size, with the amount it costs now (rounded up to the asset decimals). Each row carries its pair minimum (`min_amount_eur_cents`); a pair whose minimum the amount does not meet is left out (ask at 50000 to see every pair a top-up can reach, with its minimum). Pass a row back unchanged to POST /v1/wallet/topup; prefer an `is_stable` pair unless paying at once.',
        querystring: AssetsQuery,
        response: { 200: { ...Type.Array(AssetRow), description: 'The asset rows.', headers: rateLimitHeaders }, ...errorResponses(400) },
      },
    },
    async (request) => {
      const query = request.query as Static<typeof AssetsQuery>;
      const answer = await clients.payments.call('ListAssets', { amount_eur_cents: query.amount_eur_cents }, { deadlineMs });
      return answer.assets ?? [];
    },
  );

  app.post(
    '/v1/wallet/topup',
    {
      schema: {
        tags: ['wallet'],
        summary: 'Create a top-up',
        description:
          'Quotes the amount in the chosen asset for 30 minutes and returns a deposit address and the exact amount to send. The 201 is not payment: the balance moves when the payment provider confirms the transaction. Poll GET /v1/wallet/topup/{id} or GET /v1/wallet. Refused with `balance_cap_exceeded` when balance, held money and this amount together would pass EUR 1,000. Needs the full key.',
        body: CreateTopupBody,
        response: {
          201: { ...Topup, description: 'The top-up, `pending` with `credited_eur_cents` 0.', headers: rateLimitHeaders },
          ...errorResponses(400, 403),
        },
      },
    },
    async (request, reply) => {
      const customerId = principalOf(request).customer_id;
      const body = request.body as Static<typeof CreateTopupBody>;
      const created = await clients.payments.call(
        'CreateTopup',
        {
          customer_id: customerId,
          amount_eur_cents: body.amount_eur_cents,
          asset_code: body.asset_code,
          blockchain_code: body.blockchain_code,
          ...(body.is_evm === undefined ? {} : { is_evm: body.is_evm }),
        },
        { deadlineMs },
      );
      return reply.status(201).send(renderTopup(created));
    },
  );

  app.get(
    '/v1/wallet/topup/:id',
    {
      schema: {
        tags: ['wallet'],
        summary: 'Get a top-up',
        description: "The top-up with its current status and credited amount. Another customer's top-up is `not_found`.",
        params: TopupParams,
        response: { 200: { ...Topup, description: 'The top-up.', headers: rateLimitHeaders }, ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      const customerId = principalOf(request).customer_id;
      const { id } = request.params as Static<typeof TopupParams>;
      return renderTopup(await clients.payments.call('GetTopup', { customer_id: customerId, id }, { deadlineMs }));
    },
  );
}
