import { customerEvent } from '@mtx/shared/customer-events';
import { AppError } from '@mtx/shared/errors';
import { isDuplicateKeyError } from '@mtx/shared/mongo';
import { transactionUnits } from '../domain/money';
import { isAfterQuote, planPayment } from '../domain/payment';
import type { ProviderTransaction } from '../providers/provider';
import type { TopupDocument, TopupEventDocument } from '../store/payments-store';

import { forget, changed } from './topups-state';
import { marketRateFor } from './assets';
import { readEvents, creditEntryIdOfKey, askWalletApplied } from './topup-reads';
import type { TopupsState } from './topups-state';
import { type Progress, slotAttemptsMax, progressOf } from './topup-rules';

/** Recording what a provider confirms and crediting it to the wallet exactly once. */

/** Inserts a record at the next free sequence of the top-up; returns the record that holds `key` (ours or an earlier one). */
export async function appendEvent(
  state: TopupsState,
  topup: TopupDocument,
  key: string,
  build: (
    progress: Progress,
    events: readonly TopupEventDocument[],
  ) => Omit<TopupEventDocument, '_id' | 'topup_id' | 'seq' | 'key' | 'created_at'> | null,
): Promise<{ event: TopupEventDocument | null; created: boolean; events: TopupEventDocument[] }> {
  for (let attempt = 0; attempt < slotAttemptsMax; attempt++) {
    // First try on the remembered records without reading, or on none when nothing is remembered (a top-up this
    // replica did not quote): records fill slots from 1 without gaps, so a free slot 1 means there are none, and
    // the insert itself detects any record the guess missed (E11000 on its slot), after which they are read.
    const remembered = attempt === 0 ? (state.eventCache.get(String(topup.id)) ?? []) : undefined;
    const events = remembered ? [...remembered] : await readEvents(state, topup.id);
    const existing = events.find((event) => event.key === key);
    if (existing) return { event: existing, created: false, events };
    const progress = progressOf(events);
    const fields = build(progress, events);
    if (!fields) return { event: null, created: false, events };
    const seq = progress.seq + 1;
    const event: TopupEventDocument = { _id: `${topup.id}:${seq}`, topup_id: topup.id, seq, key, ...fields, created_at: state.clock.now() };
    try {
      await state.eventInserts.insert(event);
      state.eventCache.set(String(topup.id), [...events, event]);
      // A payment's record changes no view until its credit lands, which creditRecorded announces; announcing
      // the record too cost every replica and every gateway one more message per postback.
      if (event.kind === 'payment') forget(state, topup.customer_id);
      else changed(state, topup.customer_id);
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

/** A payment record whose wallet credit may still be owed. */
export interface RecordedPayment {
  topup: TopupDocument;
  providerName: string;
  transactionId: string;
  event: TopupEventDocument;
  /** This call inserted the record, so its credit cannot have been applied yet. */
  created: boolean;
}

/**
 * A confirmed provider payment as the crediting takes it: its amount in the asset's smallest units (see
 * `confirmedPaymentOf`), and when and how it reached the address.
 */
export interface ConfirmedPayment {
  transactionId: string;
  /** Smallest units, decimal integer string; for `cumulativeOf`, the running total of that provider payment. */
  amountUnits: string;
  receivedAt: Date;
  afterExpiration?: boolean;
  cumulativeOf?: string;
}

/** A provider's confirmed transaction in the top-up's smallest units; RangeError for an amount that is not one. */
export function confirmedPaymentOf(transaction: ProviderTransaction, topup: TopupDocument): ConfirmedPayment {
  return {
    transactionId: transaction.transactionId,
    amountUnits: transactionUnits(transaction, topup.decimals).toString(),
    receivedAt: transaction.receivedAt,
    ...(transaction.afterExpiration !== undefined ? { afterExpiration: transaction.afterExpiration } : {}),
    ...(transaction.cumulativeOf !== undefined ? { cumulativeOf: transaction.cumulativeOf } : {}),
  };
}

/** The highest running total recorded for one provider payment among a top-up's records (0 when none). */
function recordedTotal(events: readonly TopupEventDocument[], cumulativeOf: string): bigint {
  let highest = 0n;
  for (const event of events) {
    if (event.cumulative_of === cumulativeOf && event.cumulative_units !== undefined) {
      const total = BigInt(event.cumulative_units);
      if (total > highest) highest = total;
    }
  }
  return highest;
}

/**
 * Records a confirmed provider transaction once (the record decides the amount, at the first arrival); safe to
 * call any number of times, concurrently, from the inbox worker and the reconciliation poller. A running total
 * (`cumulativeOf`) is recorded as its increase over the highest total recorded before it, which is 0 (recorded,
 * worth nothing) for a report older than one already recorded: records of one top-up are appended in order, so
 * the increases add up to the highest total whatever order the reports came in.
 */
export async function recordTransaction(
  state: TopupsState,
  topup: TopupDocument,
  providerName: string,
  transaction: ConfirmedPayment,
): Promise<RecordedPayment> {
  const key = transactionKey(providerName, transaction.transactionId);
  const reported = BigInt(transaction.amountUnits);
  const afterQuote = isAfterQuote({
    receivedAt: transaction.receivedAt,
    expiresAt: topup.expires_at,
    ...(transaction.afterExpiration !== undefined ? { afterExpiration: transaction.afterExpiration } : {}),
  });
  let marketRateEur: string | undefined;
  const build = (progress: Progress, events: readonly TopupEventDocument[]) => {
    const cumulative = transaction.cumulativeOf;
    const units = cumulative === undefined ? reported : reported - recordedTotal(events, cumulative);
    const runningTotal = cumulative === undefined ? {} : { cumulative_of: cumulative, cumulative_units: transaction.amountUnits };
    if (units <= 0n) {
      // A running total no higher than one recorded before: recorded so that repeats find it, worth nothing.
      return {
        kind: 'payment' as const,
        provider_transaction_id: transaction.transactionId,
        amount_units: '0',
        received_at: transaction.receivedAt,
        ...runningTotal,
        eur_cents: 0,
        credited_after_eur_cents: progress.creditedEurCents,
        quoted_units_after: progress.quotedUnits.toString(),
        quoted_eur_cents_after: progress.quotedEurCents,
        expired_after: progress.expired,
      };
    }
    // Late coin needs the market rate, fetched only when the record does not exist yet.
    if (afterQuote && marketRateEur === undefined) return null;
    const plan = planPayment({
      quoteEurCents: topup.amount_eur_cents,
      quoteUnits: BigInt(topup.deposit_amount),
      expiresAt: topup.expires_at,
      decimals: topup.decimals,
      progress,
      units,
      receivedAt: transaction.receivedAt,
      afterExpiration: afterQuote,
      ...(marketRateEur !== undefined ? { marketRateEur } : {}),
    });
    return {
      kind: 'payment' as const,
      provider_transaction_id: transaction.transactionId,
      amount_units: units.toString(),
      received_at: transaction.receivedAt,
      ...runningTotal,
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
  const recordedAmount = transaction.cumulativeOf === undefined ? event.amount_units : event.cumulative_units;
  if (recordedAmount !== transaction.amountUnits) {
    state.logger.error(
      { topup_id: topup.id, key, recorded: recordedAmount, reported: transaction.amountUnits },
      'provider reported a different amount for a recorded transaction; the recorded one stands',
    );
  }
  return { topup, providerName, transactionId: transaction.transactionId, event, created: result.created };
}

export function transactionKey(providerName: string, transactionId: string): string {
  return `tx:${providerName}:${transactionId}`;
}

function creditEntryId(payment: RecordedPayment): string {
  return creditEntryIdOfKey(payment.event.key);
}

/**
 * Of these payments, the indexes whose credit may still be owed: one this call recorded cannot have been
 * credited yet, one remembered as credited is not, and the wallet (one FindEntries) tells for the rest. If the
 * wallet cannot be asked, those count as owed: crediting them again is the wallet's replay.
 */
async function owedPayments(state: TopupsState, payments: RecordedPayment[]): Promise<number[]> {
  const owed = payments.map((_, index) => index).filter((index) => !state.appliedCache.get(payments[index]!.event.key));
  const unknown = owed.filter((index) => !payments[index]!.created && payments[index]!.event.eur_cents > 0);
  if (unknown.length === 0) return owed;
  const applied = await askWalletApplied(
    state,
    unknown.map((index) => ({ customerId: payments[index]!.topup.customer_id, key: payments[index]!.event.key })),
  );
  const done = new Set(unknown.filter((_, position) => applied[position]));
  return owed.filter((index) => !done.has(index));
}

/**
 * Credits recorded payments to the wallet, exactly once each (the wallet's entry id), in one CreditMany, and
 * remembers each done. Answers, per payment in order, whether this call moved the money; a payment whose credit
 * failed is rejected in `failures` and left for the next delivery, sweep or poll. What is done is the wallet's
 * record (its ledger entry), not one of ours: one durable write less per postback.
 */
export async function creditRecorded(
  state: TopupsState,
  payments: RecordedPayment[],
): Promise<{ newlyCredited: boolean[]; failures: Map<number, unknown> }> {
  const newlyCredited = payments.map((payment) => payment.created);
  // Index of each payment whose credit failed, and why.
  const failures = new Map<number, unknown>();
  const owed = await owedPayments(state, payments);
  const toWallet = owed.filter((index) => payments[index]!.event.eur_cents > 0);
  for (const index of toWallet) {
    const entryId = creditEntryId(payments[index]!);
    if (payments[index]!.created && state.options.crashBeforeCreditPrefix && entryId.startsWith(state.options.crashBeforeCreditPrefix)) {
      state.logger.fatal({ entry_id: entryId }, 'fault injection: crashing between the payment record and the wallet credit');
      (state.options.exit ?? ((code: number) => process.exit(code)))(137);
    }
  }
  if (toWallet.length > 0) {
    try {
      const outcomes = await state.wallet.creditMany(
        toWallet.map((index) => {
          const payment = payments[index]!;
          return {
            customerId: payment.topup.customer_id,
            entryId: creditEntryId(payment),
            amountEurCents: payment.event.eur_cents,
            reason: 'topup',
            reference: `topup:${payment.topup.id}`,
          };
        }),
      );
      outcomes.forEach((outcome, position) => {
        const index = toWallet[position]!;
        if (outcome.error) failures.set(index, outcome.error);
        else newlyCredited[index] = newlyCredited[index]! || outcome.applied;
      });
    } catch (error) {
      for (const index of toWallet) failures.set(index, error);
    }
  }
  const done = owed.filter((index) => !failures.has(index)).map((index) => payments[index]!);
  for (const payment of done) state.appliedCache.set(payment.event.key, true);
  // One announcement per customer, however many of its payments the batch credited.
  for (const customerId of new Set(done.map((payment) => payment.topup.customer_id))) changed(state, customerId);
  for (const payment of done) {
    if (payment.event.eur_cents <= 0) continue;
    // Its id comes from the provider's transaction, so a credit marked again (a sweep, a poll) is one event.
    state.options.publishEvent?.(
      customerEvent('topup.credited', payment.event.key, payment.topup.customer_id, {
        topup_id: payment.topup.id,
        amount_eur_cents: payment.event.eur_cents,
        credited_total_eur_cents: payment.event.credited_after_eur_cents,
        transaction_id: payment.transactionId,
      }),
    );
  }
  return { newlyCredited, failures };
}

/**
 * Records a confirmed provider transaction once and credits the wallet once (the reconciliation poller's path).
 * Safe to call any number of times, concurrently, with the inbox worker: a crash between the two is finished by
 * the next poll, delivery or sweep.
 */
export async function applyConfirmedTransaction(
  state: TopupsState,
  topup: TopupDocument,
  providerName: string,
  transaction: ProviderTransaction,
): Promise<{ event: TopupEventDocument; newlyCredited: boolean }> {
  const payment = await recordTransaction(state, topup, providerName, confirmedPaymentOf(transaction, topup));
  const { newlyCredited, failures } = await creditRecorded(state, [payment]);
  if (failures.has(0)) throw failures.get(0);
  return { event: payment.event, newlyCredited: newlyCredited[0]! };
}
