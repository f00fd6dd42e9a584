import crypto from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '@mtx/shared/clock';
import { AppError } from '@mtx/shared/errors';
import type { Logger } from '@mtx/shared/logger';
import { catalog, rateEur } from '../domain/catalog';
import { deliveryModes, type DeliveryMode, type PostbackDispatcher, type PostbackJob } from '../delivery';
import type { InvoiceDocument, TransactionDocument } from '../store/sandbox-store';
import type { Invoices } from '../invoices';

// The logger is pino's own; fastify's generic defaults name a narrower one.
export type SandboxHttp = FastifyInstance<Server, IncomingMessage, ServerResponse, Logger>;

export interface SandboxRouteDependencies {
  invoices: Invoices;
  dispatcher: PostbackDispatcher;
  /** The postbacks a deposit causes, by the personality of the invoice it pays. */
  postbacksFor: (invoice: InvoiceDocument, transaction: TransactionDocument, mode: DeliveryMode) => Promise<PostbackJob | null>;
  clock: Clock;
  apiKey: string;
  rateStepMs: number;
}

const digest = (value: string) => crypto.createHash('sha256').update(value, 'utf8').digest();

const unitAmount = Type.String({
  pattern: '^[1-9][0-9]{0,77}$',
  description: 'Amount in the asset smallest unit, as a decimal integer string.',
});

/** The provider's HTTP API: the merchant invoice API (X-Api-Key), and the sandbox control endpoints (open). */
export function registerSandboxRoutes(app: SandboxHttp, dependencies: SandboxRouteDependencies): void {
  const { invoices, dispatcher, clock } = dependencies;
  const expectedKey = digest(dependencies.apiKey);

  const requireMerchant = async (request: FastifyRequest) => {
    const presented = request.headers['x-api-key'];
    if (typeof presented !== 'string' || !crypto.timingSafeEqual(digest(presented), expectedKey)) {
      throw new AppError('unauthenticated', 'missing or wrong X-Api-Key');
    }
  };

  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/v1/assets', { onRequest: requireMerchant }, async () => {
    const now = clock.now();
    return {
      rates_at: now.toISOString(),
      assets: catalog.map((asset) => ({
        asset_code: asset.coin.code,
        asset_name: asset.coin.name,
        blockchain_code: asset.chain.code,
        blockchain_name: asset.chain.name,
        is_evm: asset.chain.isEvm,
        is_stable: asset.coin.isStable,
        decimals: asset.decimals,
        display_decimals: asset.displayDecimals,
        min_amount_eur_cents: asset.minimumEurCents,
        rate_eur: rateEur(asset.coin, now, dependencies.rateStepMs),
        ...(asset.tokenContract ? { token_contract: asset.tokenContract } : {}),
      })),
    };
  });

  app.post(
    '/v1/invoices',
    {
      onRequest: requireMerchant,
      schema: {
        body: Type.Object(
          {
            asset_code: Type.String({ minLength: 1, maxLength: 16 }),
            blockchain_code: Type.String({ minLength: 1, maxLength: 16 }),
            amount: unitAmount,
            amount_eur_cents: Type.Integer({ minimum: 1 }),
            order_id: Type.String({ minLength: 1, maxLength: 128 }),
            expires_at: Type.String({ format: 'date-time' }),
            is_evm: Type.Optional(Type.Boolean()),
            callback_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2048 })),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => {
      const invoice = await invoices.create(request.body as Parameters<Invoices['create']>[0]);
      return reply.status(201).send(invoice);
    },
  );

  const idParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

  app.get('/v1/invoices/:id', { onRequest: requireMerchant, schema: { params: idParams } }, async (request) =>
    invoices.get((request.params as { id: string }).id),
  );

  app.post('/v1/invoices/:id/cancel', { onRequest: requireMerchant, schema: { params: idParams } }, async (request) =>
    invoices.cancel((request.params as { id: string }).id),
  );

  app.post(
    '/sandbox/deposits',
    {
      schema: {
        body: Type.Object(
          {
            address: Type.String({ minLength: 1, maxLength: 128 }),
            asset_code: Type.String({ minLength: 1, maxLength: 16 }),
            blockchain_code: Type.String({ minLength: 1, maxLength: 16 }),
            amount: unitAmount,
            delivery: Type.Optional(Type.Union(deliveryModes.map((mode) => Type.Literal(mode)))),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => {
      const body = request.body as {
        address: string;
        asset_code: string;
        blockchain_code: string;
        amount: string;
        delivery?: DeliveryMode;
      };
      const delivery = body.delivery ?? 'normal';
      const { invoice, transaction } = await invoices.deposit(body);
      const job = await dependencies.postbacksFor(invoice, transaction, delivery);
      if (job) dispatcher.schedule(job);
      return reply.status(201).send({
        transaction_id: transaction.transaction_id,
        invoice_id: invoice._id,
        address: invoice.address,
        amount: transaction.amount,
        status: 'confirmed',
        delivery,
        received_at: transaction.received_at.toISOString(),
      });
    },
  );

  app.get(
    '/sandbox/deliveries',
    {
      schema: {
        querystring: Type.Object(
          { transaction_id: Type.Optional(Type.String({ maxLength: 128 })), invoice_id: Type.Optional(Type.String({ maxLength: 64 })) },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => {
      const query = request.query as { transaction_id?: string; invoice_id?: string };
      return {
        pending_jobs: dispatcher.pendingJobs(),
        attempts: dispatcher.attempts({
          ...(query.transaction_id ? { transactionId: query.transaction_id } : {}),
          ...(query.invoice_id ? { invoiceId: query.invoice_id } : {}),
        }),
      };
    },
  );
}
