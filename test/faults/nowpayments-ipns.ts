import crypto from 'node:crypto';
import type { TopupForPostbacks } from './stack';

/** The key-sorted JSON NOWPayments signs (nested objects too). */
function sortedJson(value: unknown): string {
  const sort = (node: unknown): unknown =>
    Array.isArray(node)
      ? node.map(sort)
      : node && typeof node === 'object'
        ? Object.fromEntries(
            Object.keys(node)
              .sort()
              .map((key) => [key, sort((node as Record<string, unknown>)[key])]),
          )
        : node;
  return JSON.stringify(sort(value));
}

/** The development IPN secret the fault stack's services share with the fake (crypto-sandbox's config). */
export const ipnSecret = 'local-only-nowpayments-ipn-secret';
export const signIpn = (parsed: unknown, secret = ipnSecret) =>
  crypto.createHmac('sha512', secret).update(sortedJson(parsed)).digest('hex');
/** USDT on TRON (6 decimals) as NOWPayments writes it: a JSON number, and the normalized decimal payments keys it by. */
export const coins = (units: bigint) => Number(units) / 1e6;

/**
 * NOWPayments' IPN for a top-up's payment, as the storm and the crash row send it (money.test.ts, see storm.ts):
 * the payment's running total `actually_paid` under `status`, signed `x-nowpayments-sig` by `signIpn`.
 */
export const ipn = (topup: TopupForPostbacks, totalUnits: bigint, status: string) => ({
  payment_id: Number(topup.invoiceId),
  parent_payment_id: null,
  payment_status: status,
  pay_address: topup.address,
  price_amount: topup.amountEurCents / 100,
  price_currency: 'eur',
  pay_amount: coins(topup.depositUnits),
  actually_paid: coins(totalUnits),
  pay_currency: 'usdttrc20',
  order_id: String(topup.id),
  purchase_id: '5000000001',
  outcome_amount: coins(totalUnits),
  outcome_currency: 'usdttrc20',
  fee: { currency: 'usdttrc20', depositFee: 1e-7, withdrawalFee: 0, serviceFee: 0 },
  created_at: topup.createdAt.toISOString(),
  updated_at: new Date(topup.createdAt.getTime() + 1_000).toISOString(),
});
