import crypto from 'node:crypto';
import Fastify, { LogController } from 'fastify';
import type { Clock } from '@mtx/shared/clock';
import { AppError } from '@mtx/shared/errors';
import { isStoreUnavailable } from '@mtx/shared/grpc';
import { closeHttpWithin, listeningPort, startGrace, type ServiceApp } from '@mtx/shared/lifecycle';
import type { Logger } from '@mtx/shared/logger';
import type { Db } from '@mtx/shared/mongo';
import type { SandboxConfig } from './config';
import { createPostbackDispatcher, type DeliveryMode, type PostbackDispatcher } from './delivery';
import type { Personality } from './personalities/personality';
import { sandboxPostbacks } from './personalities/sandbox';
import { createNowPayments } from './personalities/nowpayments/payments';
import { createNowPaymentsPersonality } from './personalities/nowpayments/personality';
import { registerNowPaymentsRoutes } from './personalities/nowpayments/routes';
import { createBtcpayPersonality, type BtcpayPersonality } from './personalities/btcpay';
import { registerSandboxRoutes, type SandboxHttp } from './handlers/http';
import { createInvoices, type Invoices } from './invoices';
import { createSandboxStore, ensureSandboxCollections, type InvoiceDocument, type TransactionDocument } from './store/sandbox-store';

export { signPostback, signatureHeader } from './domain/signing';
export { catalog } from './domain/catalog';

export interface SandboxAppOptions {
  config: SandboxConfig;
  database: Db;
  clock: Clock;
  logger: Logger;
}

/** `start` serves HTTP on HOST:PORT (0 picks a free port); `stop` ends postback work, then the HTTP server. */
export interface SandboxApp extends ServiceApp {
  /** The Fastify instance, for in-process injection. */
  app: SandboxHttp;
  invoices: Invoices;
  dispatcher: PostbackDispatcher;
  /** The BTCPay Server personality (its expiry check runs between start and stop). */
  btcpay: BtcpayPersonality;
  /** The HTTP port it serves on, once started. */
  readonly port: number;
}

export function postbackUrlOf(config: SandboxConfig): string {
  const base = config.PAYMENTS_HOOKS_URL ?? config.GATEWAY_URL;
  return config.POSTBACK_URL ?? `${base.replace(/\/+$/, '')}/v1/hooks/payments/sandbox`;
}

/**
 * Builds the sandbox provider without touching the store or listening, so tests can run it in-process on a
 * ManualClock; `start` creates the collections, then serves.
 */
export async function createSandboxApp(options: SandboxAppOptions): Promise<SandboxApp> {
  const { config, database, clock, logger } = options;
  const store = createSandboxStore(database);
  const invoices = createInvoices({ store, clock });
  const dispatcher = createPostbackDispatcher({
    clock,
    logger,
    timeoutMs: config.POSTBACK_TIMEOUT_MS,
    attempts: config.POSTBACK_ATTEMPTS,
    retryBaseMs: config.POSTBACK_RETRY_BASE_MS,
    lateDelayMs: config.POSTBACK_LATE_DELAY_MS,
    concurrency: config.POSTBACK_CONCURRENCY,
    queueMax: config.POSTBACK_QUEUE_MAX,
  });
  const app = Fastify({
    loggerInstance: logger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 64 * 1024,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false } },
  });
  app.setErrorHandler((error: unknown, request, reply) => {
    let appError: AppError;
    const fastifyError = error as { validation?: unknown; statusCode?: number; message?: string };
    if (error instanceof AppError) appError = error;
    else if (fastifyError.validation) appError = new AppError('invalid_request', fastifyError.message ?? 'invalid request');
    else if (isStoreUnavailable(error)) appError = new AppError('unavailable', 'storage is unavailable; retry shortly');
    else if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500)
      appError = new AppError('invalid_request', fastifyError.message ?? 'invalid request');
    else {
      request.log.error({ err: error }, 'request failed');
      appError = new AppError('internal', 'internal error');
    }
    void reply.status(appError.httpStatus).send({ error: appError.toBody() });
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send({ error: { code: 'not_found', message: `no route ${request.method} ${request.url.split('?')[0]}` } });
  });
  const sandboxPersonality: Personality = {
    name: 'sandbox',
    async postbacks(invoice, transaction, mode) {
      return {
        invoiceId: invoice._id,
        transactionId: transaction.transaction_id,
        url: invoice.callback_url ?? postbackUrlOf(config),
        mode,
        messages: sandboxPostbacks(invoice, transaction, mode, {
          clock,
          secret: config.POSTBACK_SECRET,
          deliveryId: () => `dlv_${crypto.randomBytes(10).toString('hex')}`,
        }),
      };
    },
  };
  const nowPayments = createNowPayments({
    database,
    invoices,
    clock,
    rateStepMs: config.RATE_STEP_MS,
    quoteMs: config.NOWPAYMENTS_QUOTE_MS,
  });
  const nowPaymentsPersonality = createNowPaymentsPersonality({ payments: nowPayments, ipnSecret: config.NOWPAYMENTS_IPN_SECRET });
  registerNowPaymentsRoutes(app, {
    payments: nowPayments,
    dispatcher,
    statusJob: nowPaymentsPersonality.statusJob,
    clock,
    apiKey: config.NOWPAYMENTS_API_KEY,
    rateStepMs: config.RATE_STEP_MS,
  });
  const btcpay = createBtcpayPersonality({ config, database, invoices, dispatcher, clock, logger });
  btcpay.registerRoutes(app);
  const personalities = new Map<string, Personality>([
    [sandboxPersonality.name, sandboxPersonality],
    [nowPaymentsPersonality.name, nowPaymentsPersonality],
    [btcpay.name, btcpay],
  ]);
  const postbacksFor = (invoice: InvoiceDocument, transaction: TransactionDocument, mode: DeliveryMode) => {
    const personality = personalities.get(invoice.personality ?? 'sandbox');
    if (!personality) throw new AppError('internal', `invoice ${invoice._id} belongs to no personality this sandbox runs`);
    return personality.postbacks(invoice, transaction, mode);
  };
  registerSandboxRoutes(app, {
    invoices,
    dispatcher,
    postbacksFor,
    clock,
    apiKey: config.SANDBOX_API_KEY,
    rateStepMs: config.RATE_STEP_MS,
  });
  await app.ready();
  return {
    app,
    invoices,
    dispatcher,
    btcpay,
    get port() {
      return listeningPort(app.server);
    },
    async start() {
      await ensureSandboxCollections(store);
      await nowPayments.ensureCollections();
      await btcpay.ensureCollections();
      await app.listen({ port: config.PORT, host: config.HOST });
      btcpay.start();
    },
    async stop(graceMs) {
      const grace = startGrace(graceMs);
      await grace.within(btcpay.stop());
      // Postback deliveries end at their own timeout (POSTBACK_TIMEOUT_MS); past the grace they are left to it.
      await grace.within(dispatcher.close());
      await closeHttpWithin(app, grace.remainingMs);
    },
  };
}
