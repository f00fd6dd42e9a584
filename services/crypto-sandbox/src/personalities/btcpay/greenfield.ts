import crypto from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '@mtx/shared/clock';
import { AppError } from '@mtx/shared/errors';
import type { Collection } from '@mtx/shared/mongo';
import { findAsset, formatUnits, rateEur } from '../../domain/catalog';
import type { SandboxHttp } from '../../handlers/http';
import type { InvoiceView, Invoices } from '../../invoices';
import type { BtcpayInvoiceDocument } from './store';

/**
 * The part of BTCPay Server's Greenfield API (`/api/v1`) a merchant needs to take on-chain payments, served under
 * `/btcpay`: the store's payment methods and rates, invoices (create, read, their payment methods with payments).
 * Store-scoped paths and the newer unscoped invoice paths both work, as on BTCPay Server 2. Errors have Greenfield's
 * shapes: `{code, message}`, or a list of `{path, message}` for a refused request body.
 */

/** The store's payment methods: on-chain ones backed by the sandbox catalog, and Lightning, which payments must skip. */
export const storePaymentMethods = [
  { paymentMethodId: 'BTC-CHAIN', cryptoCode: 'BTC' },
  { paymentMethodId: 'BTC-LN', cryptoCode: 'BTC' },
  { paymentMethodId: 'LTC-CHAIN', cryptoCode: 'LTC' },
  { paymentMethodId: 'DOGE-CHAIN', cryptoCode: 'DOGE' },
] as const;

const onChainMethods = new Map<string, string>(
  storePaymentMethods
    .filter((method) => method.paymentMethodId.endsWith('-CHAIN'))
    .map((method) => [method.paymentMethodId, method.cryptoCode]),
);

/** A Greenfield error answer, thrown from a route. */
class GreenfieldError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(typeof body === 'object' && body && 'message' in body ? String(body.message) : 'greenfield error');
  }
}

const problem = (status: number, code: string, message: string) => new GreenfieldError(status, { code, message });
const invalid = (path: string, message: string) => new GreenfieldError(400, [{ path, message }]);

const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);
const digest = (value: string) => crypto.createHash('sha256').update(value, 'utf8').digest();

export interface GreenfieldDependencies {
  invoices: Invoices;
  btcpayInvoices: Collection<BtcpayInvoiceDocument>;
  clock: Clock;
  storeId: string;
  apiKey: string;
  rateStepMs: number;
  publicUrl: (request: FastifyRequest) => string;
}

/** The cents of a Greenfield decimal amount in EUR (`"12.34"`, `12.5`); more than 2 decimals is refused. */
function eurCentsOf(value: unknown): number | null {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string') return null;
  const match = /^([0-9]{1,9})(?:\.([0-9]{1,2})0*)?$/.exec(text);
  if (!match) return null;
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0') || '0');
}

/** Smallest units `amountEurCents` costs at `rate` (EUR per coin, 8 decimals), rounded up, as BTCPay rounds a due amount. */
function unitsDue(amountEurCents: number, rate: string, decimals: number): bigint {
  const [whole, fraction = ''] = rate.split('.') as [string, string?];
  const scaledRate = BigInt(whole) * 10n ** 8n + BigInt(fraction.padEnd(8, '0').slice(0, 8) || '0');
  const numerator = BigInt(amountEurCents) * 10n ** BigInt(decimals + 8);
  const denominator = 100n * scaledRate;
  return (numerator + denominator - 1n) / denominator;
}

export function invoiceStatusOf(view: InvoiceView, now: Date): { status: string; additionalStatus: string } {
  const paid = BigInt(view.paid_amount);
  const expected = BigInt(view.amount);
  const expired = now.getTime() >= new Date(view.expires_at).getTime();
  if (paid >= expected) return { status: 'Settled', additionalStatus: paid > expected ? 'PaidOver' : 'None' };
  if (expired) return { status: 'Expired', additionalStatus: paid > 0n ? 'PaidPartial' : 'None' };
  return { status: 'New', additionalStatus: paid > 0n ? 'PaidPartial' : 'None' };
}

/** BTCPay's payment id of an on-chain payment: the transaction's outpoint (`<txid>-<vout>`). */
export const paymentIdOf = (transactionId: string) => `${transactionId}-0`;

export function registerGreenfieldRoutes(app: SandboxHttp, dependencies: GreenfieldDependencies): void {
  const { invoices, btcpayInvoices, clock } = dependencies;
  const expectedKey = digest(`token ${dependencies.apiKey}`);

  const authenticate = (request: FastifyRequest) => {
    const presented = request.headers.authorization;
    if (typeof presented !== 'string' || !crypto.timingSafeEqual(digest(presented), expectedKey))
      throw problem(401, 'unauthenticated', 'Authentication is required for accessing this endpoint');
  };

  const storeOf = (request: FastifyRequest) => {
    const storeId = (request.params as { storeId?: string }).storeId;
    if (storeId !== undefined && storeId !== dependencies.storeId)
      throw problem(403, 'unauthorized', 'The API key has no access to this store');
  };

  /** A route in Greenfield's manner: authenticated, store-checked, its refusals in Greenfield's shapes. */
  const route =
    (handler: (request: FastifyRequest) => Promise<unknown>) =>
    async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
      try {
        authenticate(request);
        storeOf(request);
        await reply.status(200).send(await handler(request));
      } catch (error) {
        if (error instanceof GreenfieldError) return void (await reply.status(error.status).send(error.body));
        if (error instanceof AppError && error.code === 'not_found')
          return void (await reply.status(404).send({ code: 'invoice-not-found', message: 'The invoice was not found' }));
        throw error;
      }
    };

  async function loadInvoice(invoiceId: string): Promise<{ view: InvoiceView; data: BtcpayInvoiceDocument }> {
    const data = invoiceId.length <= 64 ? await btcpayInvoices.findOne({ _id: invoiceId }) : null;
    if (!data || data.store_id !== dependencies.storeId) throw problem(404, 'invoice-not-found', 'The invoice was not found');
    return { view: await invoices.get(invoiceId), data };
  }

  function invoiceData(request: FastifyRequest, view: InvoiceView, data: BtcpayInvoiceDocument) {
    const now = clock.now();
    const { status, additionalStatus } = invoiceStatusOf(view, now);
    const paidCents = (BigInt(view.paid_amount) * BigInt(eurCentsOf(data.amount) ?? 0)) / BigInt(view.amount);
    return {
      id: view.id,
      storeId: data.store_id,
      amount: data.amount,
      paidAmount: `${paidCents / 100n}.${String(paidCents % 100n).padStart(2, '0')}`,
      currency: data.currency,
      type: 'Standard',
      checkoutLink: `${dependencies.publicUrl(request)}/i/${view.id}`,
      createdTime: unixSeconds(data.created_at),
      expirationTime: unixSeconds(data.expires_at),
      monitoringExpiration: unixSeconds(data.expires_at) + 24 * 3600,
      status,
      additionalStatus,
      availableStatusesForManualMarking: status === 'Settled' ? ['Invalid'] : ['Settled', 'Invalid'],
      archived: false,
      metadata: data.metadata,
      checkout: {
        speedPolicy: 'MediumSpeed',
        paymentMethods: [data.payment_method_id],
        defaultPaymentMethod: data.payment_method_id,
        lazyPaymentMethods: false,
        expirationMinutes: data.expiration_minutes,
        monitoringMinutes: 1440,
        paymentTolerance: 0,
      },
    };
  }

  function paymentMethods(view: InvoiceView, data: BtcpayInvoiceDocument) {
    const paid = BigInt(view.paid_amount);
    const expected = BigInt(view.amount);
    return [
      {
        activated: true,
        paymentMethodId: data.payment_method_id,
        currency: data.crypto_code,
        destination: view.address,
        paymentLink: `${data.crypto_code === 'BTC' ? 'bitcoin' : data.crypto_code.toLowerCase()}:${view.address}?amount=${view.amount_decimal}`,
        rate: data.rate,
        paymentMethodPaid: formatUnits(paid, view.decimals),
        totalPaid: formatUnits(paid, view.decimals),
        due: formatUnits(expected - paid, view.decimals),
        amount: view.amount_decimal,
        paymentMethodFee: '0',
        payments: view.transactions.map((transaction) => ({
          id: paymentIdOf(transaction.id),
          receivedDate: unixSeconds(new Date(transaction.received_at)),
          value: transaction.amount_decimal,
          fee: '0',
          // The sandbox's chain confirms a payment as it arrives.
          status: 'Settled',
          destination: view.address,
        })),
        additionalData: {},
      },
    ];
  }

  app.get(
    '/btcpay/api/v1/stores/:storeId/payment-methods',
    route(async () => storePaymentMethods.map((method) => ({ enabled: true, paymentMethodId: method.paymentMethodId, config: null }))),
  );

  app.get(
    '/btcpay/api/v1/stores/:storeId/rates',
    route(async (request) => {
      const asked = (request.query as { currencyPair?: string | string[] }).currencyPair;
      const pairs = (asked === undefined ? ['BTC_EUR'] : Array.isArray(asked) ? asked : [asked]).slice(0, 100);
      return pairs.map((pair) => {
        const [base, quote] = pair.split('_');
        const asset = base ? findAsset(base, base) : undefined;
        if (!asset || quote !== 'EUR') return { currencyPair: pair, errors: [`Unsupported currency pair ${pair}`], rate: null };
        return { currencyPair: pair, errors: [], rate: rateEur(asset.coin, clock.now(), dependencies.rateStepMs) };
      });
    }),
  );

  app.post(
    '/btcpay/api/v1/stores/:storeId/invoices',
    route(async (request) => {
      const body = (request.body ?? {}) as Record<string, unknown>;
      const cents = eurCentsOf(body.amount);
      if (cents === null || cents <= 0) throw invalid('amount', 'amount must be a positive decimal with at most 2 decimals');
      if (body.currency !== 'EUR') throw invalid('currency', 'this store invoices in EUR only');
      const metadata = (body.metadata ?? {}) as Record<string, unknown>;
      if (typeof metadata !== 'object' || Array.isArray(metadata) || JSON.stringify(metadata).length > 4_096)
        throw invalid('metadata', 'metadata must be an object of at most 4 KiB');
      const checkout = (body.checkout ?? {}) as { paymentMethods?: unknown; expirationMinutes?: unknown };
      const methods = checkout.paymentMethods ?? ['BTC-CHAIN'];
      if (!Array.isArray(methods) || methods.length !== 1 || !onChainMethods.has(String(methods[0])))
        throw invalid('checkout.paymentMethods', `this fake takes exactly one on-chain method of ${[...onChainMethods.keys()].join(', ')}`);
      const minutes = checkout.expirationMinutes ?? 15;
      if (typeof minutes !== 'number' || !(minutes >= 1 && minutes <= 60 * 24 * 30))
        throw invalid('checkout.expirationMinutes', 'expirationMinutes must be a number of minutes');
      const paymentMethodId = String(methods[0]);
      const cryptoCode = onChainMethods.get(paymentMethodId)!;
      const asset = findAsset(cryptoCode, cryptoCode)!;
      const now = clock.now();
      const rate = rateEur(asset.coin, now, dependencies.rateStepMs);
      const expiresAt = new Date(now.getTime() + Math.round(minutes * 60_000));
      const orderId = typeof metadata.orderId === 'string' ? metadata.orderId.slice(0, 128) : '';
      const view = await invoices.create({
        asset_code: asset.coin.code,
        blockchain_code: asset.chain.code,
        amount: unitsDue(cents, rate, asset.decimals).toString(),
        amount_eur_cents: cents,
        order_id: orderId || 'none',
        expires_at: expiresAt.toISOString(),
        personality: 'btcpay',
      });
      const data: BtcpayInvoiceDocument = {
        _id: view.id,
        store_id: dependencies.storeId,
        payment_method_id: paymentMethodId,
        crypto_code: cryptoCode,
        rate,
        amount: `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`,
        currency: 'EUR',
        metadata,
        expiration_minutes: minutes,
        created_at: now,
        expires_at: expiresAt,
        expiry_handled: false,
      };
      await btcpayInvoices.insertOne(data);
      return invoiceData(request, view, data);
    }),
  );

  for (const prefix of ['/btcpay/api/v1/stores/:storeId/invoices', '/btcpay/api/v1/invoices']) {
    app.get(
      `${prefix}/:invoiceId`,
      route(async (request) => {
        const { view, data } = await loadInvoice((request.params as { invoiceId: string }).invoiceId);
        return invoiceData(request, view, data);
      }),
    );
    app.get(
      `${prefix}/:invoiceId/payment-methods`,
      route(async (request) => {
        const { view, data } = await loadInvoice((request.params as { invoiceId: string }).invoiceId);
        return paymentMethods(view, data);
      }),
    );
  }
}
