import { AppError } from '@mtx/shared/errors';
import { isDuplicateKeyError } from '@mtx/shared/mongo';
import { planPayment } from '../domain/payment';
import type { ProviderTransaction } from '../providers/provider';
import type { TopupDocument, TopupEventDocument } from '../store/payments-store';

import { forget, changed } from './topups-state';
import { marketRateFor } from './assets';
import { readEvents, creditApplied } from './topup-reads';
import type { TopupsState } from './topups-state';
import { type Progress, slotAttemptsMax, progressOf } from './topup-rules';

/** Recording what a provider confirms and crediting it to the wallet exactly once. */

/** Inserts a record at the next free sequence of the top-up; returns the record that holds `key` (ours or an earlier one). */
export async function appendEvent(
  state: TopupsState,
  topup: TopupDocument,
  key: string,
  build: (progress: Progress) => Omit<TopupEventDocument, '_id' | 'topup_id' | 'seq' | 'key' | 'created_at'> | null,
): Promise<{ event: TopupEventDocument | null; created: boolean; events: TopupEventDocument[] }> {
  for (let attempt = 0; attempt < slotAttemptsMax; attempt++) {
    // First try on the remembered records without reading: the insert itself detects a newer record (E11000
    // on its slot), and then the records are read.
    const remembered = attempt === 0 ? state.eventCache.get(String(topup.id)) : undefined;
    const events = remembered ? [...remembered] : await readEvents(state, topup.id);
    const existing = events.find((event) => event.key === key);
    if (existing) return { event: existing, created: false, events };
    const progress = progressOf(events);
    const fields = build(progress);
    if (!fields) return { event: null, created: false, events };
    const seq = progress.seq + 1;
    const event: TopupEventDocument = { _id: `${topup.id}:${seq}`, topup_id: topup.id, seq, key, ...fields, created_at: state.clock.now() };
    try {
      await state.eventInserts.insert(event);
      state.eventCache.set(String(topup.id), [...events, event]);
      changed(state, topup.customer_id);
      return { event, created: true, events: [...events, event] };
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      // Another replica recorded something on this top-up first.
      forget(state, topup.customer_id);
      const occupant = await state.store.events.findOne({ _id: event._id });
      if (occupant && occupant.key !== key) continue;
      // The key exists: found on the next read of this top-up's records, or (never on the normal path) elsewhere.
      if (!occupant) {
        const elsewhere = await state.store.events.findOne({ key });
        if (elsewhere && elsewhere.topup_id !== topup.id) {
          throw new AppError('conflict', `${key} is already recorded for top-up ${elsewhere.topup_id}`);
        }
      }
    }
  }
  throw new AppError('unavailable', 'the top-up is changing too fast; retry shortly');
}

/**
 * Records a confirmed provider transaction once and credits the wallet once. Safe to call any number of
 * times, concurrently, from postbacks and the reconciliation poller: the record decides the amount (at the
 * first arrival) and the wallet's entry id makes the credit exactly-once; a crash between the two is
 * finished by the next delivery or poll.
 */
export async function applyConfirmedTransaction(
  state: TopupsState,
  topup: TopupDocument,
  providerName: string,
  transaction: ProviderTransaction,
): Promise<{ event: TopupEventDocument; newlyCredited: boolean }> {
  const key = `tx:${providerName}:${transaction.transactionId}`;
  const units = BigInt(transaction.amountUnits);
  const insideWindow = transaction.receivedAt.getTime() < topup.expires_at.getTime();
  let marketRateEur: string | undefined;
  const build = (progress: Progress) => {
    // Late coin needs the market rate, fetched only when the record does not exist yet.
    if (!insideWindow && marketRateEur === undefined) return null;
    const plan = planPayment({
      quoteEurCents: topup.amount_eur_cents,
      quoteUnits: BigInt(topup.deposit_amount),
      expiresAt: topup.expires_at,
      decimals: topup.decimals,
      progress,
      units,
      receivedAt: transaction.receivedAt,
      ...(marketRateEur !== undefined ? { marketRateEur } : {}),
    });
    return {
      kind: 'payment' as const,
      provider_transaction_id: transaction.transactionId,
      amount_units: transaction.amountUnits,
      received_at: transaction.receivedAt,
      rate: plan.rate,
      ...(plan.rate === 'market' && marketRateEur !== undefined ? { market_rate_eur: marketRateEur } : {}),
      eur_cents: plan.eurCents,
      credited_after_eur_cents: plan.creditedAfterEurCents,
      quoted_units_after: plan.quotedUnitsAfter.toString(),
      quoted_eur_cents_after: plan.quotedEurCentsAfter,
      expired_after: progress.expired,
    };
  };
  let result = await appendEvent(state, topup, key, build);
  if (!result.event) {
    marketRateEur = await marketRateFor(state, topup);
    result = await appendEvent(state, topup, key, build);
  }
  const event = result.event!;
  if (event.amount_units !== transaction.amountUnits) {
    state.logger.error(
      { topup_id: topup.id, key, recorded: event.amount_units, reported: transaction.amountUnits },
      'provider reported a different amount for a recorded transaction; the recorded one stands',
    );
  }
  let newlyCredited = result.created;
  // A record this call inserted cannot have been credited yet; an older one may have been.
  const applied = !result.created && (await creditApplied(state, key));
  if (!applied) {
    if (event.eur_cents > 0) {
      const entryId = `topup:${providerName}:${transaction.transactionId}`;
      if (result.created && state.options.crashBeforeCreditPrefix && entryId.startsWith(state.options.crashBeforeCreditPrefix)) {
        state.logger.fatal({ entry_id: entryId }, 'fault injection: crashing between the payment record and the wallet credit');
        (state.options.exit ?? ((code: number) => process.exit(code)))(137);
      }
      const movement = await state.wallet.credit({
        customerId: topup.customer_id,
        entryId,
        amountEurCents: event.eur_cents,
        reason: 'topup',
        reference: `topup:${topup.id}`,
      });
      newlyCredited = newlyCredited || movement.applied;
    }
    await state.appliedInserts.insertIfAbsent({ _id: key, applied_at: state.clock.now() });
    state.appliedCache.set(key, true);
    changed(state, topup.customer_id);
  }
  return { event, newlyCredited };
}
