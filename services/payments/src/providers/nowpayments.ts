import crypto from 'node:crypto';
import { AppError } from '@mtx/shared/errors';
import { BoundedCache } from '@mtx/shared/bounded-cache';
import { unitsOfDecimal } from '../domain/money';
import {
  assetOfTicker,
  decimalOf,
  eurCentsUp,
  offeredCurrencies,
  rateOfQuote,
  tickerOf,
  type NowPaymentsCurrency,
  type OfferedCurrency,
} from './nowpayments-assets';
import { parseIpn, paymentIdOf, transactionOf, verifyIpn, type NowPaymentsPayment } from './nowpayments-ipn';
import type { CreateInvoiceInput, PaymentProvider, ProviderAsset, ProviderInvoice, ProviderPostback } from './provider';

export interface NowPaymentsProviderOptions {
  /** NOWPayments' API with its version, e.g. `https://api.nowpayments.io/v1`. */
  apiUrl: string;
  apiKey: string;
  ipnSecret: string;
  /** Where NOWPayments posts the IPNs of a payment (`ipn_callback_url`). */
  callbackUrl: string | undefined;
  timeoutMs: number;
  /** How long the currency list, the merchant's coins and each coin's minimum are reused. */
  metadataCacheMs?: number;
  /** How long an estimate of one amount in one coin is reused. */
  estimateCacheMs?: number;
  /** NOWPayments calls in flight at once for one asset listing (one per coin and amount). */
  concurrency?: number;
}

const responseBytesMax = 2 * 1024 * 1024;
/** The amount the market rate of a coin is taken from when no amount is asked about (late coin). */
const referenceAmountEurCents = 10_000;

interface Minimum {
  minimumUnits: bigint;
  minimumEurCents: number | undefined;
}

interface Timed<T> {
  atMs: number;
  value: T;
}

/** Runs `work` over `items` with at most `limit` at a time, results in order. */
async function mapBounded<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * NOWPayments (hosted, many coins) behind the provider interface: its REST API (`x-api-key`) and its IPNs
 * (HMAC-SHA512 over the key-sorted JSON). A top-up is one NOWPayments payment at a fixed rate, priced in EUR, with
 * our top-up id as `order_id`. See docs/providers/nowpayments.md.
 */
export function createNowPaymentsProvider(options: NowPaymentsProviderOptions): PaymentProvider {
  const apiUrl = options.apiUrl.replace(/\/+$/, '');
  const secret = crypto.createSecretKey(Buffer.from(options.ipnSecret, 'utf8'));
  const metadataCacheMs = options.metadataCacheMs ?? 10 * 60_000;
  const estimateCacheMs = options.estimateCacheMs ?? 5_000;
  const concurrency = options.concurrency ?? 4;
  let offered: Timed<OfferedCurrency[]> | undefined;
  const minimums = new BoundedCache<Timed<Minimum>>(256);
  const estimates = new BoundedCache<Timed<bigint>>(4_096);

  async function request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${apiUrl}${path}`, {
        method,
        headers: { 'x-api-key': options.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (error) {
      throw new AppError('unavailable', 'NOWPayments did not answer; retry shortly', { cause: error });
    }
    const text = await response.text().catch(() => '');
    if (text.length > responseBytesMax) throw new AppError('unavailable', 'NOWPayments sent an oversized answer');
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      throw new AppError('unavailable', `NOWPayments answered ${response.status} with a body that is not JSON`);
    }
    if (response.ok) return parsed as T;
    // NOWPayments' errors: {status: false, statusCode, code, message}.
    const message = String((parsed as { message?: unknown } | undefined)?.message ?? `HTTP ${response.status}`).slice(0, 300);
    if (response.status === 404) throw new AppError('not_found', `NOWPayments: ${message}`);
    if (response.status >= 500 || response.status === 429) throw new AppError('unavailable', `NOWPayments: ${message}`);
    // Anything else means we sent something NOWPayments refuses (a wrong key, a bad parameter): our bug or setup.
    throw new AppError('internal', `NOWPayments refused the request: ${message}`);
  }

  const fresh = <T>(entry: Timed<T> | undefined, ttlMs: number): entry is Timed<T> =>
    entry !== undefined && Math.abs(Date.now() - entry.atMs) < ttlMs;

  /** The merchant's enabled coins that we can offer (`/full-currencies` ∩ `/merchant/coins`), cached. */
  async function offeredNow(): Promise<OfferedCurrency[]> {
    if (fresh(offered, metadataCacheMs)) return offered.value;
    const [full, merchant] = await Promise.all([
      request<{ currencies?: NowPaymentsCurrency[] }>('GET', '/full-currencies'),
      request<{ selectedCurrencies?: string[] }>('GET', '/merchant/coins'),
    ]);
    const value = offeredCurrencies(full?.currencies ?? [], merchant?.selectedCurrencies ?? []);
    offered = { atMs: Date.now(), value };
    return value;
  }

  async function minimumOf(currency: OfferedCurrency): Promise<Minimum> {
    const cached = minimums.get(currency.code);
    if (fresh(cached, metadataCacheMs)) return cached.value;
    const query = new URLSearchParams({
      currency_from: currency.code,
      // Received without conversion: the merchant keeps the coin it is paid in.
      currency_to: currency.code,
      fiat_equivalent: 'eur',
      is_fixed_rate: 'true',
    });
    const answer = await request<{ min_amount?: unknown; fiat_equivalent?: unknown }>('GET', `/min-amount?${query}`);
    const minimumDecimal = decimalOf(answer?.min_amount);
    if (minimumDecimal === undefined) throw new AppError('unavailable', `NOWPayments sent no minimum for ${currency.code}`);
    const value = {
      minimumUnits: unitsOfDecimal(minimumDecimal, currency.asset.decimals),
      minimumEurCents: eurCentsUp(answer.fiat_equivalent),
    };
    minimums.set(currency.code, { atMs: Date.now(), value });
    return value;
  }

  /** What `amountEurCents` costs in the coin's smallest units, by NOWPayments' own estimate. */
  async function estimateOf(currency: OfferedCurrency, amountEurCents: number): Promise<bigint> {
    const key = `${currency.code}:${amountEurCents}`;
    const cached = estimates.get(key);
    if (fresh(cached, estimateCacheMs)) return cached.value;
    const query = new URLSearchParams({ amount: (amountEurCents / 100).toFixed(2), currency_from: 'eur', currency_to: currency.code });
    const answer = await request<{ estimated_amount?: unknown }>('GET', `/estimate?${query}`);
    const estimated = decimalOf(answer?.estimated_amount);
    if (estimated === undefined) throw new AppError('unavailable', `NOWPayments sent no estimate for ${currency.code}`);
    const value = unitsOfDecimal(estimated, currency.asset.decimals);
    estimates.set(key, { atMs: Date.now(), value });
    return value;
  }

  /** One asset row: the estimate of the amount (or of a reference amount, for the rate only) and the minimum. */
  async function assetOf(currency: OfferedCurrency, amountEurCents: number | undefined): Promise<ProviderAsset | null> {
    const quotedCents = amountEurCents ?? referenceAmountEurCents;
    const [minimum, units] = await Promise.all([minimumOf(currency), estimateOf(currency, quotedCents)]);
    const rateEur = rateOfQuote(quotedCents, units, currency.asset.decimals);
    if (rateEur === undefined) return null;
    // The EUR that buys the coin minimum at this estimate's rate, rounded up to the cent.
    const minimumAtRate = Number((minimum.minimumUnits * BigInt(quotedCents) + units - 1n) / units);
    let minimumEurCents = minimum.minimumEurCents ?? minimumAtRate;
    // The coin amount decides: an amount whose estimate is below the coin minimum is not offered for it even where
    // NOWPayments' EUR figure says it would be; its row's minimum is then what buys the coin minimum at this rate.
    if (amountEurCents !== undefined && units < minimum.minimumUnits && minimumEurCents <= amountEurCents)
      minimumEurCents = Math.max(minimumAtRate, amountEurCents + 1);
    return {
      ...currency.asset,
      minimumEurCents,
      rateEur,
      ...(amountEurCents !== undefined ? { amountUnits: units.toString() } : {}),
    };
  }

  return {
    name: 'nowpayments',

    async listAssets(amountEurCents?: number): Promise<ProviderAsset[]> {
      const currencies = await offeredNow();
      const assets = await mapBounded(currencies, concurrency, async (currency) => {
        try {
          return await assetOf(currency, amountEurCents);
        } catch (error) {
          // One coin NOWPayments cannot quote now (unavailable, or a pair it refuses) is left out; the rest are offered.
          if (error instanceof AppError && (error.code === 'internal' || error.code === 'not_found')) return null;
          throw error;
        }
      });
      return assets.filter((asset): asset is ProviderAsset => asset !== null);
    },

    async createInvoice(input: CreateInvoiceInput): Promise<ProviderInvoice> {
      const code = tickerOf(input.assetCode, input.blockchainCode);
      if (!code) throw new AppError('invalid_request', `${input.assetCode} on ${input.blockchainCode} is not a NOWPayments currency`);
      if (options.callbackUrl === undefined)
        throw new AppError('internal', 'PUBLIC_BASE_URL is not set: NOWPayments has nowhere to call back');
      const payment = await request<
        NowPaymentsPayment & { pay_address?: unknown; pay_amount?: unknown; expiration_estimate_date?: unknown; payin_extra_id?: unknown }
      >('POST', '/payment', {
        price_amount: input.amountEurCents / 100,
        price_currency: 'eur',
        pay_currency: code,
        ipn_callback_url: options.callbackUrl,
        order_id: input.orderId,
        order_description: `Top-up ${input.orderId}`,
        is_fixed_rate: true,
        is_fee_paid_by_user: false,
      });
      const paymentId = paymentIdOf(payment?.payment_id);
      const payAmount = decimalOf(payment?.pay_amount);
      const units = payAmount === undefined ? 0n : unitsOfDecimal(payAmount, assetOfTicker(code)!.decimals);
      if (!paymentId || typeof payment.pay_address !== 'string' || payment.pay_address.length === 0 || units <= 0n)
        throw new AppError('unavailable', 'NOWPayments created a payment without an id, an address or an amount');
      // A memo coin slipped through (NOWPayments changed the coin): a top-up cannot show the memo, so no top-up.
      if (typeof payment.payin_extra_id === 'string' && payment.payin_extra_id.length > 0)
        throw new AppError('unavailable', `NOWPayments asks for a memo with ${code}; it is not offered now`);
      const quoteEnds = new Date(String(payment.expiration_estimate_date ?? ''));
      return {
        invoiceId: paymentId,
        address: payment.pay_address,
        assetCode: input.assetCode,
        blockchainCode: input.blockchainCode,
        amountUnits: units.toString(),
        // Without NOWPayments' own end of the quote, ours stands.
        expiresAt: Number.isNaN(quoteEnds.getTime()) ? input.expiresAt : quoteEnds,
        transactions: [],
      };
    },

    async getInvoice(invoiceId: string): Promise<ProviderInvoice> {
      const payment = await request<
        NowPaymentsPayment & { pay_address?: unknown; pay_amount?: unknown; expiration_estimate_date?: unknown }
      >('GET', `/payment/${encodeURIComponent(invoiceId)}`);
      const code = typeof payment?.pay_currency === 'string' ? payment.pay_currency.toLowerCase() : '';
      const asset = assetOfTicker(code);
      const payAmount = decimalOf(payment?.pay_amount);
      if (!asset || payAmount === undefined || typeof payment.pay_address !== 'string')
        throw new AppError('unavailable', `NOWPayments answered payment ${invoiceId} without its currency, amount or address`);
      const transaction = transactionOf(payment, new Date());
      return {
        invoiceId,
        address: payment.pay_address,
        assetCode: asset.assetCode,
        blockchainCode: asset.blockchainCode,
        amountUnits: unitsOfDecimal(payAmount, asset.decimals).toString(),
        // GET /payment may leave the quote's end out; reconciliation reads only the transactions.
        expiresAt: new Date(String(payment.expiration_estimate_date ?? payment.updated_at ?? payment.created_at ?? '')),
        transactions: transaction ? [transaction] : [],
      };
    },

    async cancelInvoice(): Promise<void> {
      // NOWPayments has no way to cancel a payment: ours fails at its expiry, and coin arriving later is still credited.
    },

    verifyPostback(body: Buffer, headers: Record<string, string>): boolean {
      return verifyIpn(body, headers, secret);
    },

    parsePostback(body: Buffer): ProviderPostback {
      return parseIpn(body, new Date());
    },
  };
}
