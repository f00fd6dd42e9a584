import crypto from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '@mtx/shared/clock';
import { AppError } from '@mtx/shared/errors';
import { deliveryModes, type DeliveryMode, type PostbackDispatcher, type PostbackJob } from '../../delivery';
import type { SandboxHttp } from '../../handlers/http';
import { coinNumber, fakeCurrencies, fakeCurrency, unitsForEurCents } from './currencies';
import { paymentStatuses, type NowPayments, type PaymentState } from './payments';

export const nowPaymentsPrefix = '/nowpayments/v1';

export interface NowPaymentsRouteDependencies {
  payments: NowPayments;
  dispatcher: PostbackDispatcher;
  statusJob(state: PaymentState, status: string, mode: DeliveryMode): PostbackJob | null;
  clock: Clock;
  apiKey: string;
  rateStepMs: number;
}

const digest = (value: string) => crypto.createHash('sha256').update(value, 'utf8').digest();

/** NOWPayments' error body: `{status: false, statusCode, code, message}`. */
function sendError(reply: FastifyReply, statusCode: number, code: string, message: string) {
  return reply.status(statusCode).send({ status: false, statusCode, code, message });
}

const errorCodes: Record<string, [number, string]> = {
  invalid_request: [400, 'INVALID_REQUEST_PARAMS'],
  not_found: [404, 'NOT_FOUND'],
  unauthenticated: [403, 'INVALID_API_KEY'],
  unavailable: [503, 'SERVICE_UNAVAILABLE'],
};

/**
 * A fake of NOWPayments' merchant API (`https://api.nowpayments.io/v1`), served under `/nowpayments/v1`: the
 * endpoints payments uses, with NOWPayments' field names, number formats and error shapes, over the sandbox's
 * invoice book and rates. Plus one control endpoint NOWPayments does not have: setting a payment's status
 * (`failed`, `refunded`, …) and sending its IPN.
 */
export function registerNowPaymentsRoutes(app: SandboxHttp, dependencies: NowPaymentsRouteDependencies): void {
  const { payments, clock } = dependencies;
  const expectedKey = digest(dependencies.apiKey);

  const requireKey = async (request: FastifyRequest) => {
    const presented = request.headers['x-api-key'];
    if (typeof presented !== 'string' || !crypto.timingSafeEqual(digest(presented), expectedKey))
      throw new AppError('unauthenticated', 'Invalid api key');
  };

  void app.register(
    async (scope) => {
      scope.setErrorHandler((error: unknown, request, reply) => {
        const validation = (error as { validation?: unknown }).validation;
        if (error instanceof AppError && errorCodes[error.code]) {
          const [statusCode, code] = errorCodes[error.code]!;
          return sendError(reply, statusCode, code, error.message);
        }
        if (validation) return sendError(reply, 400, 'INVALID_REQUEST_PARAMS', (error as Error).message);
        request.log.error({ err: error }, 'NOWPayments fake request failed');
        return sendError(reply, 500, 'INTERNAL_ERROR', 'Internal server error');
      });
      scope.setNotFoundHandler((_request, reply) => sendError(reply, 404, 'NOT_FOUND', 'Not found'));

      scope.get('/status', async () => ({ message: 'OK' }));

      scope.get('/full-currencies', { onRequest: requireKey }, async () => ({
        currencies: fakeCurrencies.map((currency, index) => ({
          id: index + 1,
          code: currency.code,
          name: currency.name,
          enable: true,
          wallet_regex: null,
          priority: index + 1,
          extra_id_exists: currency.extraIdExists,
          extra_id_regex: currency.extraIdExists ? '^[0-9]{1,10}$' : null,
          logo_url: `/images/coins/${currency.code.toLowerCase()}.svg`,
          track: true,
          cg_id: null,
          is_maxlimit: false,
          network: currency.network,
          smart_contract: currency.listed?.tokenContract ?? null,
          network_precision: currency.listed ? String(currency.listed.decimals) : null,
          is_stable: currency.isStable,
        })),
      }));

      scope.get('/merchant/coins', { onRequest: requireKey }, async () => ({
        selectedCurrencies: fakeCurrencies.filter((currency) => currency.merchantEnabled).map((currency) => currency.code),
      }));

      scope.get(
        '/min-amount',
        {
          onRequest: requireKey,
          schema: {
            querystring: Type.Object({
              currency_from: Type.String({ minLength: 1, maxLength: 32 }),
              currency_to: Type.Optional(Type.String({ maxLength: 32 })),
              fiat_equivalent: Type.Optional(Type.String({ maxLength: 8 })),
            }),
          },
        },
        async (request) => {
          const query = request.query as { currency_from: string; currency_to?: string; fiat_equivalent?: string };
          const currency = fakeCurrency(query.currency_from);
          if (!currency?.listed) throw new AppError('invalid_request', `currency_from ${query.currency_from} is not supported`);
          const minimumCents = currency.listed.minimumEurCents;
          const units = unitsForEurCents(currency.listed, minimumCents, clock.now(), dependencies.rateStepMs);
          return {
            currency_from: query.currency_from.toLowerCase(),
            currency_to: (query.currency_to ?? query.currency_from).toLowerCase(),
            min_amount: coinNumber(units, currency.listed.decimals),
            ...(query.fiat_equivalent?.toLowerCase() === 'eur' ? { fiat_equivalent: minimumCents / 100 } : {}),
          };
        },
      );

      scope.get(
        '/estimate',
        {
          onRequest: requireKey,
          schema: {
            querystring: Type.Object({
              amount: Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$', maxLength: 20 }),
              currency_from: Type.String({ minLength: 1, maxLength: 32 }),
              currency_to: Type.String({ minLength: 1, maxLength: 32 }),
            }),
          },
        },
        async (request) => {
          const query = request.query as { amount: string; currency_from: string; currency_to: string };
          const currency = fakeCurrency(query.currency_to);
          if (query.currency_from.toLowerCase() !== 'eur') throw new AppError('invalid_request', 'this fake estimates from eur only');
          if (!currency?.listed) throw new AppError('invalid_request', `currency_to ${query.currency_to} is not supported`);
          const cents = Math.round(Number(query.amount) * 100);
          if (!Number.isSafeInteger(cents) || cents <= 0) throw new AppError('invalid_request', 'amount must be positive');
          const units = unitsForEurCents(currency.listed, cents, clock.now(), dependencies.rateStepMs);
          return {
            currency_from: 'eur',
            amount_from: Number(query.amount),
            currency_to: query.currency_to.toLowerCase(),
            estimated_amount: coinNumber(units, currency.listed.decimals),
          };
        },
      );

      scope.post(
        '/payment',
        {
          onRequest: requireKey,
          schema: {
            body: Type.Object({
              price_amount: Type.Number({ exclusiveMinimum: 0 }),
              price_currency: Type.String({ minLength: 1, maxLength: 16 }),
              pay_currency: Type.String({ minLength: 1, maxLength: 32 }),
              ipn_callback_url: Type.Optional(Type.String({ pattern: '^https?://', maxLength: 2048 })),
              order_id: Type.Optional(Type.String({ maxLength: 128 })),
              order_description: Type.Optional(Type.String({ maxLength: 512 })),
              is_fixed_rate: Type.Optional(Type.Boolean()),
              is_fee_paid_by_user: Type.Optional(Type.Boolean()),
            }),
          },
        },
        async (request, reply) => reply.status(201).send(await payments.create(request.body as Parameters<NowPayments['create']>[0])),
      );

      scope.get(
        '/payment/:id',
        { onRequest: requireKey, schema: { params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 32 }) }) } },
        async (request) => payments.get((request.params as { id: string }).id),
      );
    },
    { prefix: nowPaymentsPrefix },
  );

  app.post(
    '/sandbox/nowpayments/payments/:id/status',
    {
      schema: {
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 32 }) }),
        body: Type.Object(
          {
            status: Type.Union(paymentStatuses.map((status) => Type.Literal(status))),
            delivery: Type.Optional(Type.Union(deliveryModes.map((mode) => Type.Literal(mode)))),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      const body = request.body as { status: string; delivery?: DeliveryMode };
      const state = await payments.setStatus(id, body.status);
      const job = dependencies.statusJob(state, body.status, body.delivery ?? 'normal');
      if (job) dependencies.dispatcher.schedule(job);
      return payments.paymentBody(state);
    },
  );
}
