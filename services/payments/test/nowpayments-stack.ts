import crypto from 'node:crypto';
import { expect, inject } from 'vitest';
import { eventually } from '@mtx/shared/testing';
import { startWalletStack, type WalletStack } from '../../../test/e2e/wallet-stack';
import type { TopupView } from '../src/app/topup-types';

/** The NOWPayments settings payments and the sandbox's fake NOWPayments share in these tests. */
export const nowPaymentsApiKey = 'test-nowpayments-api-key';
export const nowPaymentsIpnSecret = 'test-nowpayments-ipn-secret';

/** The wallet stack with payments creating top-ups at the sandbox's fake NOWPayments, which calls back its hook listener. */
export function startNowPaymentsStack(): Promise<WalletStack> {
  return startWalletStack({
    mongodbUrl: inject('mongodbUrl'),
    natsUrl: inject('natsUrl'),
    sandboxEnv: { NOWPAYMENTS_API_KEY: nowPaymentsApiKey, NOWPAYMENTS_IPN_SECRET: nowPaymentsIpnSecret },
    paymentsEnv: ({ sandboxUrl, paymentsHooksUrl }) => ({
      PAYMENTS_PROVIDER: 'nowpayments',
      NOWPAYMENTS_API_URL: `${sandboxUrl}/nowpayments/v1`,
      NOWPAYMENTS_API_KEY: nowPaymentsApiKey,
      NOWPAYMENTS_IPN_SECRET: nowPaymentsIpnSecret,
      PUBLIC_BASE_URL: paymentsHooksUrl,
      // Rates follow the stack's manual clock; a cached estimate would outlive a jump of it.
      PROVIDER_ASSETS_CACHE_MS: '0',
    }),
  });
}

/** A top-up as payments answers it (the API's view). */
export type NowPaymentsTopup = TopupView;

/** NOWPayments' merchant API on the fake, as payments calls it. */
export async function nowPaymentsApi(stack: WalletStack, path: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${stack.sandboxUrl}/nowpayments/v1${path}`, { headers: { 'x-api-key': nowPaymentsApiKey } });
  return { status: response.status, body: await response.json() };
}

/** Coin sent to the top-up's address; the fake sends its IPNs in `delivery` mode. */
export async function deposit(
  stack: WalletStack,
  topup: NowPaymentsTopup,
  amountUnits: bigint | string,
  delivery = 'normal',
): Promise<{ invoice_id: string; transaction_id: string }> {
  const response = await stack.sandboxRequest('POST', '/sandbox/deposits', {
    address: topup.deposit_address,
    asset_code: topup.asset_code,
    blockchain_code: topup.blockchain_code,
    amount: String(amountUnits),
    delivery,
  });
  expect(response.status).toBe(201);
  return response.body;
}

/** The IPN signature as NOWPayments documents it, written here independently of both adapter and fake. */
export function signIpn(parsed: unknown, secret = nowPaymentsIpnSecret): string {
  const sort = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(sort);
    if (!value || typeof value !== 'object') return value;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) sorted[key] = sort((value as Record<string, unknown>)[key]);
    return sorted;
  };
  return crypto
    .createHmac('sha512', secret)
    .update(JSON.stringify(sort(parsed)))
    .digest('hex');
}

/** POSTs an IPN body to payments' hook listener as NOWPayments would. */
export async function postIpn(baseUrl: string, body: string, signature: string | null): Promise<{ status: number; body: any }> {
  const response = await fetch(`${baseUrl}/v1/hooks/payments/nowpayments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(signature === null ? {} : { 'x-nowpayments-sig': signature }) },
    body,
  });
  return { status: response.status, body: await response.json().catch(() => null) };
}

/** An IPN of the top-up's payment as NOWPayments would write it, with `actually_paid` and status given. */
export function ipnOf(
  topup: NowPaymentsTopup,
  paymentId: string,
  fields: { status: string; actuallyPaid: number | string; updatedAt: Date; parentPaymentId?: string },
): Record<string, unknown> {
  return {
    payment_id: Number(paymentId),
    parent_payment_id: fields.parentPaymentId === undefined ? null : Number(fields.parentPaymentId),
    payment_status: fields.status,
    pay_address: topup.deposit_address,
    price_amount: topup.amount_eur_cents / 100,
    price_currency: 'eur',
    pay_amount: Number(topup.deposit_amount_decimal),
    actually_paid: typeof fields.actuallyPaid === 'string' ? Number(fields.actuallyPaid) : fields.actuallyPaid,
    pay_currency: 'usdttrc20',
    order_id: String(topup.id),
    order_description: `Top-up ${topup.id}`,
    purchase_id: '5555555555',
    outcome_amount: 1,
    outcome_currency: 'usdttrc20',
    fee: { currency: 'usdttrc20', depositFee: 1e-7, serviceFee: 0, withdrawalFee: 0 },
    created_at: topup.created_at,
    updated_at: fields.updatedAt.toISOString(),
  };
}

export async function balanceOf(stack: WalletStack, customerId: string): Promise<number> {
  return Number((await stack.walletClient.call<{ balance_eur_cents: number }>('GetWallet', { customer_id: customerId })).balance_eur_cents);
}

/** Waits until the balance is `expected`, then checks it stays there and the top-up shows the same credit. */
export async function expectCredited(stack: WalletStack, topup: NowPaymentsTopup, expected: number): Promise<void> {
  await eventually(async () => {
    expect(await balanceOf(stack, topup.customer_id)).toBe(expected);
    return true;
  });
  await eventually(async () => expect(await stack.inboxUnsettled()).toBe(0));
  await new Promise((resolve) => setTimeout(resolve, 150));
  expect(await balanceOf(stack, topup.customer_id)).toBe(expected);
}

/** Sends every IPN the fake delivered for a payment and waits for them all: none pending, none retrying. */
export async function deliveriesSettled(stack: WalletStack): Promise<void> {
  await eventually(async () => {
    const answer = await stack.sandboxRequest('GET', '/sandbox/deliveries');
    expect(answer.body.pending_jobs).toBe(0);
    return true;
  });
}
