import crypto from 'node:crypto';
import { AppError } from '@mtx/shared/errors';
import { isUnitAmount } from '../domain/money';
import type {
  CreateInvoiceInput,
  PaymentProvider,
  ProviderAsset,
  ProviderInvoice,
  ProviderPostback,
  ProviderTransaction,
  ProviderTransactionStatus,
} from './provider';

export interface SandboxProviderOptions {
  baseUrl: string;
  apiKey: string;
  postbackSecret: string;
  timeoutMs: number;
}

interface SandboxTransaction {
  id: string;
  amount: string;
  status: string;
  received_at: string;
}

interface SandboxInvoice {
  id: string;
  address: string;
  asset_code: string;
  blockchain_code: string;
  amount: string;
  expires_at: string;
  payment_uri?: string;
  transactions: SandboxTransaction[];
}

const signaturePattern = /^sha256=([0-9a-f]{64})$/;
const transactionStatuses: readonly ProviderTransactionStatus[] = ['confirming', 'confirmed', 'failed'];
const responseBytesMax = 1024 * 1024;

function toTransaction(raw: unknown): ProviderTransaction {
  const value = raw as Partial<SandboxTransaction> | null;
  const receivedAt = new Date(String(value?.received_at));
  if (
    !value ||
    typeof value.id !== 'string' ||
    value.id.length === 0 ||
    value.id.length > 128 ||
    !isUnitAmount(value.amount) ||
    !transactionStatuses.includes(value.status as ProviderTransactionStatus) ||
    Number.isNaN(receivedAt.getTime())
  ) {
    throw new AppError('invalid_request', 'provider transaction is malformed');
  }
  return { transactionId: value.id, amountUnits: value.amount, status: value.status as ProviderTransactionStatus, receivedAt };
}

function toInvoice(raw: SandboxInvoice): ProviderInvoice {
  return {
    invoiceId: raw.id,
    address: raw.address,
    assetCode: raw.asset_code,
    blockchainCode: raw.blockchain_code,
    amountUnits: raw.amount,
    expiresAt: new Date(raw.expires_at),
    ...(raw.payment_uri ? { paymentUri: raw.payment_uri } : {}),
    transactions: (raw.transactions ?? []).map(toTransaction),
  };
}

/** The crypto-sandbox behind the provider interface: its HTTP invoice API and its HMAC-SHA256 postbacks. */
export function createSandboxProvider(options: SandboxProviderOptions): PaymentProvider {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  // One key object for every postback: from raw bytes, Node builds a new one per HMAC (4 % of payments' CPU at 1,000/s).
  const secret = crypto.createSecretKey(Buffer.from(options.postbackSecret, 'utf8'));

  async function request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { 'x-api-key': options.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (error) {
      throw new AppError('unavailable', 'the payment provider did not answer; retry shortly', { cause: error });
    }
    const text = await response.text();
    if (text.length > responseBytesMax) throw new AppError('unavailable', 'the payment provider sent an oversized answer');
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      throw new AppError('unavailable', `the payment provider answered ${response.status} with a body that is not JSON`);
    }
    if (response.ok) return parsed as T;
    const message = (parsed as { error?: { message?: string } } | undefined)?.error?.message ?? `HTTP ${response.status}`;
    if (response.status === 404) throw new AppError('not_found', `payment provider: ${message}`);
    if (response.status === 409) throw new AppError('conflict', `payment provider: ${message}`);
    if (response.status >= 500 || response.status === 429) throw new AppError('unavailable', `payment provider: ${message}`);
    // Anything else means we sent something the provider refuses: our bug, not the customer's.
    throw new AppError('internal', `payment provider refused the request: ${message}`);
  }

  return {
    name: 'sandbox',

    async listAssets(): Promise<ProviderAsset[]> {
      const answer = await request<{ assets: Array<Record<string, unknown>> }>('GET', '/v1/assets');
      return answer.assets.map((asset) => ({
        assetCode: String(asset.asset_code),
        assetName: String(asset.asset_name),
        blockchainCode: String(asset.blockchain_code),
        blockchainName: String(asset.blockchain_name),
        isEvm: asset.is_evm === true,
        isStable: asset.is_stable === true,
        decimals: Number(asset.decimals),
        displayDecimals: Number(asset.display_decimals),
        minimumEurCents: Number(asset.min_amount_eur_cents),
        rateEur: String(asset.rate_eur),
      }));
    },

    async createInvoice(input: CreateInvoiceInput): Promise<ProviderInvoice> {
      const invoice = await request<SandboxInvoice>('POST', '/v1/invoices', {
        asset_code: input.assetCode,
        blockchain_code: input.blockchainCode,
        amount: input.amountUnits,
        amount_eur_cents: input.amountEurCents,
        order_id: input.orderId,
        expires_at: input.expiresAt.toISOString(),
        ...(input.isEvm ? { is_evm: true } : {}),
      });
      return toInvoice(invoice);
    },

    async getInvoice(invoiceId: string): Promise<ProviderInvoice> {
      return toInvoice(await request<SandboxInvoice>('GET', `/v1/invoices/${encodeURIComponent(invoiceId)}`));
    },

    async cancelInvoice(invoiceId: string): Promise<void> {
      try {
        await request('POST', `/v1/invoices/${encodeURIComponent(invoiceId)}/cancel`);
      } catch (error) {
        // Paid in full in the meantime: nothing is left to cancel.
        if (error instanceof AppError && error.code === 'conflict') return;
        throw error;
      }
    },

    verifyPostback(body: Buffer, headers: Record<string, string>): boolean {
      const match = signaturePattern.exec(headers['x-signature'] ?? '');
      const expected = crypto.createHmac('sha256', secret).update(body).digest();
      // Compared even when the header is malformed, so timing does not reveal which check failed.
      const presented = match ? Buffer.from(match[1]!, 'hex') : Buffer.alloc(expected.length);
      return crypto.timingSafeEqual(presented, expected) && match !== null;
    },

    parsePostback(body: Buffer): ProviderPostback {
      let raw: Record<string, unknown>;
      try {
        raw = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      } catch {
        throw new AppError('invalid_request', 'postback body is not JSON');
      }
      const sentAt = new Date(String(raw?.timestamp));
      if (
        raw?.type !== 'transaction' ||
        typeof raw.invoice_id !== 'string' ||
        typeof raw.asset_code !== 'string' ||
        typeof raw.blockchain_code !== 'string' ||
        Number.isNaN(sentAt.getTime())
      ) {
        throw new AppError('invalid_request', 'postback is not a transaction notification');
      }
      return {
        invoiceId: raw.invoice_id,
        ...(typeof raw.order_id === 'string' && raw.order_id.length <= 64 ? { orderId: raw.order_id } : {}),
        assetCode: raw.asset_code,
        blockchainCode: raw.blockchain_code,
        transaction: toTransaction(raw.transaction),
        sentAt,
      };
    },
  };
}
