import { AppError } from '@mtx/shared/errors';
import { unitsOfDecimal } from '../domain/money';
import {
  btcpayCoins,
  coinOfAsset,
  coinOfCryptoCode,
  eurAmountOfCents,
  onChainCryptoCode,
  onChainPaymentMethodId,
  rateOfBtcpay,
  type BtcpayCoin,
} from './btcpay-assets';
import { createBtcpayWebhooks, dateOfBtcpay, transactionOf } from './btcpay-webhooks';
import type { CreateInvoiceInput, PaymentProvider, ProviderAsset, ProviderInvoice, ProviderTransaction } from './provider';

export interface BtcpayProviderOptions {
  /** The server's root (`https://btcpay.example.com`); the Greenfield API is under `/api/v1`. */
  baseUrl: string;
  storeId: string;
  apiKey: string;
  webhookSecret: string;
  timeoutMs: number;
}

/** A store's payment method, as `GET /api/v1/stores/{storeId}/payment-methods` lists it. */
interface StorePaymentMethod {
  paymentMethodId?: unknown;
  paymentMethod?: unknown;
  enabled?: unknown;
}

/** An invoice's payment method, as `GET .../invoices/{invoiceId}/payment-methods` lists it. */
interface InvoicePaymentMethod {
  paymentMethodId?: unknown;
  currency?: unknown;
  destination?: unknown;
  amount?: unknown;
  rate?: unknown;
  payments?: unknown;
}

interface InvoiceData {
  id?: unknown;
  createdTime?: unknown;
  expirationTime?: unknown;
  status?: unknown;
}

const responseBytesMax = 1024 * 1024;
/** How long the store's enabled payment methods are reused: they change when an operator edits the store. */
const storeMethodsFreshMs = 60_000;
/** BTCPay's invoice lifetime for a top-up: the product's quote window (30 minutes). */
export const btcpayExpirationMinutes = 30;

/** The smallest units of a BTCPay coin amount, rounded UP: an address's expected amount never falls short. */
function unitsRoundedUp(value: string, decimals: number): bigint {
  const extraDigits = 30;
  const fine = unitsOfDecimal(value, decimals + extraDigits);
  const step = 10n ** BigInt(extraDigits);
  return (fine + step - 1n) / step;
}

/**
 * BTCPay Server behind the provider interface, through its Greenfield API (`Authorization: token <key>`), for one
 * store. docs/providers/btcpay.md says what the store needs and why each choice is made.
 */
export function createBtcpayProvider(options: BtcpayProviderOptions): PaymentProvider {
  const root = options.baseUrl.replace(/\/+$/, '');
  const store = `/api/v1/stores/${encodeURIComponent(options.storeId)}`;
  const webhooks = createBtcpayWebhooks({ storeId: options.storeId, webhookSecret: options.webhookSecret });
  // One entry, replaced when stale: the store's on-chain payment method id per crypto code.
  let storeMethods: { loadedAtMs: number; methodIds: Map<string, string> } | undefined;

  async function request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${root}${path}`, {
        method,
        headers: {
          authorization: `token ${options.apiKey}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (error) {
      throw new AppError('unavailable', 'BTCPay Server did not answer; retry shortly', { cause: error });
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw new AppError('unavailable', 'BTCPay Server broke off its answer', { cause: error });
    }
    if (text.length > responseBytesMax) throw new AppError('unavailable', 'BTCPay Server sent an oversized answer');
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      throw new AppError('unavailable', `BTCPay Server answered ${response.status} with a body that is not JSON`);
    }
    if (response.ok) return parsed as T;
    // Greenfield errors: `{code, message}`, or a list of `{path, message}` for a refused request body.
    const problem = Array.isArray(parsed)
      ? (parsed[0] as { message?: unknown } | undefined)
      : (parsed as { message?: unknown } | undefined);
    const message = typeof problem?.message === 'string' ? problem.message.slice(0, 300) : `HTTP ${response.status}`;
    if (response.status === 404) throw new AppError('not_found', `BTCPay Server: ${message}`);
    if (response.status >= 500 || response.status === 429 || response.status === 408)
      throw new AppError('unavailable', `BTCPay Server: ${message}`);
    // 400/401/403/422: a key without the permissions docs/providers/btcpay.md names, or a request we got wrong.
    throw new AppError('internal', `BTCPay Server refused the request (${response.status}): ${message}`);
  }

  /** The store's enabled on-chain payment methods that the coin table knows, by crypto code. */
  async function enabledMethods(): Promise<Map<string, string>> {
    const nowMs = Date.now();
    if (storeMethods && nowMs - storeMethods.loadedAtMs < storeMethodsFreshMs) return storeMethods.methodIds;
    const listed = await request<StorePaymentMethod[]>('GET', `${store}/payment-methods?onlyEnabled=true`);
    if (!Array.isArray(listed)) throw new AppError('unavailable', 'BTCPay Server listed no payment methods');
    const methodIds = new Map<string, string>();
    for (const method of listed.slice(0, 1_000)) {
      // BTCPay 1 named the field `paymentMethod`.
      const methodId = method?.paymentMethodId ?? method?.paymentMethod;
      const cryptoCode = onChainCryptoCode(methodId);
      if (method?.enabled === false || !cryptoCode || !coinOfCryptoCode(cryptoCode)) continue;
      if (!methodIds.has(cryptoCode)) methodIds.set(cryptoCode, String(methodId));
    }
    storeMethods = { loadedAtMs: nowMs, methodIds };
    return methodIds;
  }

  async function invoicePaymentMethods(invoiceId: string): Promise<InvoicePaymentMethod[]> {
    const methods = await request<InvoicePaymentMethod[]>('GET', `${store}/invoices/${encodeURIComponent(invoiceId)}/payment-methods`);
    if (!Array.isArray(methods)) throw new AppError('unavailable', 'BTCPay Server sent no payment methods for the invoice');
    return methods;
  }

  /** The invoice's on-chain method of a coin the table knows (a top-up's invoice has exactly one). */
  function onChainMethodOf(methods: InvoicePaymentMethod[], coin?: BtcpayCoin): { method: InvoicePaymentMethod; coin: BtcpayCoin } | null {
    for (const method of methods) {
      const found = coinOfCryptoCode(onChainCryptoCode(method.paymentMethodId) ?? '');
      if (found && (!coin || found === coin)) return { method, coin: found };
    }
    return null;
  }

  async function readInvoice(invoiceId: string, knownCoin?: BtcpayCoin, known?: InvoiceData): Promise<ProviderInvoice> {
    const [invoice, methods] = await Promise.all([
      known ? Promise.resolve(known) : request<InvoiceData>('GET', `${store}/invoices/${encodeURIComponent(invoiceId)}`),
      invoicePaymentMethods(invoiceId),
    ]);
    const expiresAt = dateOfBtcpay(invoice?.expirationTime);
    if (!expiresAt) throw new AppError('unavailable', `BTCPay invoice ${invoiceId} has no expirationTime`);
    const createdAt = dateOfBtcpay(invoice?.createdTime);
    const found = onChainMethodOf(methods, knownCoin);
    if (!found) throw new AppError('unavailable', `BTCPay invoice ${invoiceId} has no on-chain payment method payments can take`);
    const { method, coin } = found;
    if (typeof method.destination !== 'string' || method.destination.length === 0 || method.destination.length > 256)
      throw new AppError('unavailable', `BTCPay invoice ${invoiceId} has no address yet`);
    let amountUnits: bigint;
    try {
      amountUnits = unitsRoundedUp(String(method.amount), coin.decimals);
    } catch {
      throw new AppError('unavailable', `BTCPay invoice ${invoiceId} has no valid amount`);
    }
    const transactions: ProviderTransaction[] = [];
    for (const payment of Array.isArray(method.payments) ? method.payments.slice(0, 1_000) : []) {
      try {
        transactions.push(transactionOf(payment, false, undefined, createdAt));
      } catch {
        // One malformed entry does not hide the others from reconciliation.
      }
    }
    return {
      invoiceId,
      address: method.destination,
      assetCode: coin.assetCode,
      blockchainCode: coin.blockchainCode,
      amountUnits: amountUnits.toString(),
      expiresAt,
      transactions,
    };
  }

  return {
    name: 'btcpay',

    async listAssets(): Promise<ProviderAsset[]> {
      const methods = await enabledMethods();
      const offered = btcpayCoins.filter((coin) => methods.has(coin.cryptoCode));
      if (offered.length === 0) return [];
      const query = offered.map((coin) => `currencyPair=${encodeURIComponent(`${coin.cryptoCode}_EUR`)}`).join('&');
      const rates = await request<Array<{ currencyPair?: unknown; rate?: unknown; errors?: unknown }>>('GET', `${store}/rates?${query}`);
      if (!Array.isArray(rates)) throw new AppError('unavailable', 'BTCPay Server sent no rates');
      const assets: ProviderAsset[] = [];
      for (const coin of offered) {
        const row = rates.find((candidate) => candidate?.currencyPair === `${coin.cryptoCode}_EUR`);
        const rateEur = rateOfBtcpay(row?.rate);
        // A pair the store's rate rules cannot price is not offered until they can.
        if (!rateEur || (Array.isArray(row?.errors) && row.errors.length > 0)) continue;
        assets.push({
          assetCode: coin.assetCode,
          assetName: coin.assetName,
          blockchainCode: coin.blockchainCode,
          blockchainName: coin.blockchainName,
          isEvm: coin.isEvm,
          isStable: coin.isStable,
          decimals: coin.decimals,
          displayDecimals: coin.displayDecimals,
          // BTCPay has no minimum of its own: the product's top-up minimum applies.
          minimumEurCents: 0,
          rateEur,
        });
      }
      return assets;
    },

    async createInvoice(input: CreateInvoiceInput): Promise<ProviderInvoice> {
      const coin = coinOfAsset(input.assetCode, input.blockchainCode);
      if (!coin) throw new AppError('invalid_request', `${input.assetCode} on ${input.blockchainCode} is not offered through BTCPay`);
      const paymentMethodId = (await enabledMethods()).get(coin.cryptoCode) ?? onChainPaymentMethodId(coin);
      const created = await request<InvoiceData>('POST', `${store}/invoices`, {
        amount: eurAmountOfCents(input.amountEurCents),
        currency: 'EUR',
        metadata: { orderId: input.orderId },
        checkout: {
          expirationMinutes: btcpayExpirationMinutes,
          paymentMethods: [paymentMethodId],
          defaultPaymentMethod: paymentMethodId,
          // The address must exist now: the top-up shows it at once.
          lazyPaymentMethods: false,
        },
      });
      if (typeof created?.id !== 'string' || created.id.length === 0 || created.id.length > 128)
        throw new AppError('unavailable', 'BTCPay Server created an invoice without an id');
      // An answer without its expiry is read as the quote's end: the top-up never outlives it either way.
      return readInvoice(created.id, coin, {
        ...created,
        expirationTime: dateOfBtcpay(created.expirationTime) ? created.expirationTime : input.expiresAt.toISOString(),
      });
    },

    getInvoice: (invoiceId: string) => readInvoice(invoiceId),

    /**
     * Nothing to do: the invoice expires by itself after `expirationMinutes`, which never ends before the top-up's
     * quote, and marking it `Invalid` would not stop coin from reaching its address (docs/providers/btcpay.md).
     */
    async cancelInvoice(): Promise<void> {},

    verifyPostback: (body, headers) => webhooks.verify(body, headers),

    parsePostback: (body) => webhooks.parse(body),
  };
}
