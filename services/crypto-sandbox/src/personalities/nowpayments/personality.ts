import { planFor, type DeliveryMode, type PostbackJob, type PostbackMessage } from '../../delivery';
import type { InvoiceDocument, TransactionDocument } from '../../store/sandbox-store';
import type { Personality } from '../personality';
import { renderIpn } from './ipn';
import type { NowPayments, PaymentState } from './payments';

/** What NOWPayments reports for a deposit: seen, then either short of the price or paid and passed on. */
const fullProgress = ['confirming', 'confirmed', 'sending', 'finished'] as const;
const shortProgress = ['confirming', 'partially_paid'] as const;

/**
 * The fake NOWPayments' IPNs for a deposit: for the payment it belongs to (the original while open, else a new
 * repeat payment), one notification per status with `actually_paid` = the payment's total including it, in
 * the delivery mode asked. `reversed` sends the highest total first and then the lower ones, including the
 * previous deposit's final notice (an IPN of an earlier total arriving late).
 */
export function createNowPaymentsPersonality(dependencies: { payments: NowPayments; ipnSecret: string }): Personality & {
  statusJob(state: PaymentState, status: string, mode: DeliveryMode): PostbackJob | null;
} {
  const { payments, ipnSecret } = dependencies;

  const message = (state: PaymentState, status: string, paidUnits: bigint): PostbackMessage => ({
    label: status,
    render: () => renderIpn(payments.paymentBody(state, { status, paidUnits }), ipnSecret),
  });

  const jobOf = (state: PaymentState, transactionId: string, mode: DeliveryMode, messages: PostbackMessage[]): PostbackJob | null =>
    state.document.ipn_callback_url
      ? { invoiceId: state.document._id, transactionId, url: state.document.ipn_callback_url, mode, messages }
      : null;

  return {
    name: 'nowpayments',

    async postbacks(invoice: InvoiceDocument, transaction: TransactionDocument, mode: DeliveryMode): Promise<PostbackJob | null> {
      const { state, previousUnits } = await payments.paymentOfDeposit(invoice._id, transaction.n);
      const progress = state.paidUnits >= state.payUnits ? fullProgress : shortProgress;
      const messages = planFor(mode, progress).map((status) => message(state, status, state.paidUnits));
      if (mode === 'reversed' && previousUnits > 0n) messages.push(message(state, 'partially_paid', previousUnits));
      return jobOf(state, transaction.transaction_id, mode, messages);
    },

    statusJob(state: PaymentState, status: string, mode: DeliveryMode): PostbackJob | null {
      return jobOf(
        state,
        `${state.document._id}:${status}`,
        mode,
        planFor(mode, [status]).map((planned) => message(state, planned, state.paidUnits)),
      );
    },
  };
}
