import type { Clock } from '@mtx/shared/clock';
import { formatUnits } from '../domain/catalog';
import { signatureHeader, signPostback } from '../domain/signing';
import { planFor, type DeliveryMode, type PostbackMessage } from '../delivery';
import type { InvoiceDocument, TransactionDocument } from '../store/sandbox-store';

type TransactionStatus = 'confirming' | 'confirmed';

/** The order the sandbox reports a payment in: seen on chain, then confirmed. */
const progress: readonly TransactionStatus[] = ['confirming', 'confirmed'];

/**
 * The sandbox's own postback: JSON `{type: "transaction", delivery_id, timestamp, invoice_id, order_id, …,
 * transaction: {…}}`, signed `X-Signature: sha256=<hex HMAC-SHA256 of the raw body>`, the timestamp inside the
 * signed body so a receiver can refuse stale replays.
 */
export function sandboxPostbacks(
  invoice: InvoiceDocument,
  transaction: TransactionDocument,
  mode: DeliveryMode,
  dependencies: { clock: Clock; secret: string; deliveryId: () => string },
): PostbackMessage[] {
  return planFor(mode, progress).map((status) => {
    const deliveryId = dependencies.deliveryId();
    return {
      label: status,
      render() {
        const body = JSON.stringify({
          type: 'transaction',
          delivery_id: deliveryId,
          timestamp: dependencies.clock.now().toISOString(),
          invoice_id: invoice._id,
          order_id: invoice.order_id,
          address: invoice.address,
          asset_code: invoice.asset_code,
          blockchain_code: invoice.blockchain_code,
          transaction: {
            id: transaction.transaction_id,
            amount: transaction.amount,
            amount_decimal: formatUnits(BigInt(transaction.amount), invoice.decimals),
            status,
            confirmations: status === 'confirmed' ? 12 : 1,
            received_at: transaction.received_at.toISOString(),
          },
        });
        return { body, headers: { [signatureHeader]: signPostback(body, dependencies.secret) } };
      },
    };
  });
}
