import { expect } from 'vitest';
import type { WalletStack } from '../../../test/e2e/wallet-stack';

export interface PayableTopup {
  id: number;
  deposit_address: string;
  asset_code: string;
  blockchain_code: string;
}

export interface SandboxPayment {
  transaction_id: string;
  invoice_id: string;
  received_at: string;
}

/** A coin transfer to the top-up's address, made in the sandbox without its postback (the test delivers it). */
export async function payThroughSandbox(stack: WalletStack, topup: Omit<PayableTopup, 'id'>, amount: string): Promise<SandboxPayment> {
  const response = await stack.sandboxRequest('POST', '/sandbox/deposits', {
    address: topup.deposit_address,
    asset_code: topup.asset_code,
    blockchain_code: topup.blockchain_code,
    amount,
    delivery: 'never',
  });
  expect(response.status).toBe(201);
  return response.body as SandboxPayment;
}

/** The provider's postback for `payment`, as the sandbox would sign and send it. */
export function postbackBody(
  stack: WalletStack,
  topup: PayableTopup,
  payment: SandboxPayment,
  amount: string,
  status = 'confirmed',
): string {
  return JSON.stringify({
    type: 'transaction',
    timestamp: stack.clock.now().toISOString(),
    invoice_id: payment.invoice_id,
    order_id: String(topup.id),
    address: topup.deposit_address,
    asset_code: topup.asset_code,
    blockchain_code: topup.blockchain_code,
    transaction: { id: payment.transaction_id, amount, status, confirmations: 12, received_at: payment.received_at },
  });
}
