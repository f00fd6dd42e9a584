import { customerEvent } from '@mtx/shared/customer-events';
import { insertIfAbsent } from '@mtx/shared/mongo';
import type { TopupDocument } from '../store/payments-store';

import { providerNamed } from './assets';
import { appendEvent } from './crediting';
import type { TopupsState } from './topups-state';
import { owedCancellationsMax } from './topup-rules';

/** Ending quotes nobody paid in time, and cancelling them at the provider. */

export async function cancelAtProvider(state: TopupsState, topup: TopupDocument): Promise<void> {
  try {
    await providerNamed(state, topup.provider).cancelInvoice(topup.invoice_id);
    await insertIfAbsent(state.store.cancelledInvoices, { _id: topup._id, cancelled_at: state.clock.now() });
    state.owedCancellations.delete(topup._id);
  } catch (error) {
    if (state.owedCancellations.size < owedCancellationsMax) state.owedCancellations.add(topup._id);
    state.logger.warn({ err: error, topup_id: topup.id }, 'invoice not cancelled at the provider yet; the expiry sweep retries');
  }
}

/** Records the expiry of a quote that received nothing, then makes sure its invoice is cancelled at the provider. */
export async function expireOne(state: TopupsState, topup: TopupDocument): Promise<boolean> {
  const now = state.clock.now();
  const result = await appendEvent(state, topup, `expired:${topup.id}`, (progress) => {
    // Only a quote that received nothing fails; one already paid in part stays partial.
    if (progress.creditedEurCents > 0 || progress.expired || now.getTime() < topup.expires_at.getTime()) return null;
    return {
      kind: 'expired',
      eur_cents: 0,
      credited_after_eur_cents: progress.creditedEurCents,
      quoted_units_after: progress.quotedUnits.toString(),
      quoted_eur_cents_after: progress.quotedEurCents,
      expired_after: true,
    };
  });
  if (result.created)
    state.options.publishEvent?.(
      customerEvent('topup.expired', `expired:${topup.id}`, topup.customer_id, {
        topup_id: topup.id,
        amount_eur_cents: topup.amount_eur_cents,
      }),
    );
  const expiry = result.event ?? result.events.find((event) => event.kind === 'expired');
  if (expiry && !(await state.store.cancelledInvoices.findOne({ _id: topup._id }, { projection: { _id: 1 } })))
    await cancelAtProvider(state, topup);
  return result.created;
}
