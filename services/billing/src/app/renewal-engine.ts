import { customerEvent, type CustomerEventDraft } from '@mtx/shared/customer-events';
import { AppError } from '@mtx/shared/errors';
import type { Clock } from '@mtx/shared/clock';
import type { Logger } from '@mtx/shared/logger';
import type { BillingStore } from '../store/billing-store';
import { addHours } from '../domain/calendar';
import { seatKey, type ExecutionNotice, type ReleaseReason, type SeatDocument, type SeatState } from '../domain/model';
import { debitManyEntriesMax, type ExecutionPort, type WalletPort } from '../domain/ports';
import {
  advancePeriod,
  isInsufficientBalance,
  nextActionAt,
  seatEntryId,
  seatStep,
  type Precharge,
  type RenewalOutcome,
  type RenewalPolicy,
  type SeatRenewalWrites,
} from '../domain/renewals';
import { ServerRenewals } from './server-renewals';

/**
 * The renewal state machine for seats and servers. Every step re-reads the item by `_id`, decides from the
 * fresh state and the clock, and writes the outcome; a step run twice (two replicas, a credit event and the
 * scheduler at once) charges through the same entry id and so reaches the same state without charging twice.
 * Callers run it inside the customer's serial queue.
 */
export class RenewalEngine {
  constructor(
    private readonly store: BillingStore,
    private readonly wallet: WalletPort,
    private readonly execution: ExecutionPort,
    private readonly clock: Clock,
    private readonly policy: RenewalPolicy,
    private readonly logger: Logger,
    /** Tells the customer's webhooks (seat.past_due, seat.suspended); optional. */
    private readonly publishEvent?: (event: CustomerEventDraft) => void,
  ) {
    this.servers = new ServerRenewals(store, wallet, clock, policy, logger);
  }

  /** A seat entering past_due or suspended, once per period (the period's end is in the event's id). */
  private announceSeat(seat: SeatDocument, accountId: string, status: 'past_due' | 'suspended', graceEndsAt: Date, now: Date): void {
    if (seat.status === status) return;
    const type = status === 'past_due' ? 'seat.past_due' : 'seat.suspended';
    this.publishEvent?.(
      customerEvent(
        type,
        `${seat._id}:${seat.paid_until.toISOString()}`,
        seat.customer_id,
        { seat_id: seat._id, account_id: accountId, period_end: seat.paid_until.toISOString(), grace_ends_at: graceEndsAt.toISOString() },
        now,
      ),
    );
  }

  private readonly servers: ServerRenewals;

  /** Brings one server up to date (see ServerRenewals). */
  processServer(serverId: string, cancelAtPeriodEnd: boolean, options: { retryOverdue?: boolean } = {}): Promise<RenewalOutcome> {
    return this.servers.processServer(serverId, cancelAtPeriodEnd, options);
  }

  /**
   * Debits, in one wallet call per 50, every seat of `states` (one customer's, fresh by `_id` or verified) that
   * processSeat would charge at `now`, in the given order, and returns each one's result by entry id for
   * processSeat's `precharged`. The customer's queue must be held, as for processSeat itself. A failed call
   * (wallet down, deadline) is returned as the failure of each of its entries, which leaves those seats as a
   * failed single debit would (deferred).
   */
  async prechargeSeats(
    customerId: string,
    states: SeatState[],
    cancelAtPeriodEnd: boolean,
    options: { retryOverdue?: boolean } = {},
  ): Promise<Map<string, Precharge>> {
    const now = this.clock.now();
    const entries = states
      .filter((state) => seatStep(state, cancelAtPeriodEnd, now, options.retryOverdue ?? false) === 'charge')
      .map(({ seat }) => ({
        entry_id: seatEntryId(seat._id, seat.paid_until),
        amount_eur_cents: this.policy.seatPriceEurCents,
        reason: 'seat' as const,
        reference: seat._id,
      }));
    const precharged = new Map<string, Precharge>();
    for (let start = 0; start < entries.length; start += debitManyEntriesMax) {
      const chunk = entries.slice(start, start + debitManyEntriesMax);
      try {
        const results = await this.wallet.debitMany({ customer_id: customerId, entries: chunk });
        chunk.forEach((entry, index) => {
          const result = results[index];
          // A conflict (the id used for another movement) is left to the seat's own debit, which reports it.
          if (result?.outcome === 'applied' || result?.outcome === 'replay')
            precharged.set(entry.entry_id, { replay: result.outcome === 'replay', balance_eur_cents: result.balance_eur_cents });
          else if (result?.outcome === 'insufficient_balance') precharged.set(entry.entry_id, 'insufficient_balance');
        });
      } catch (error) {
        for (const entry of chunk) precharged.set(entry.entry_id, { failure: error });
      }
    }
    return precharged;
  }

  /** Brings one seat up to date. `cancelAtPeriodEnd` is the customer's setting, read once per batch. */
  async processSeat(
    seatId: string,
    cancelAtPeriodEnd: boolean,
    options: {
      retryOverdue?: boolean;
      prefetched?: SeatState;
      deferredWrites?: SeatRenewalWrites;
      precharged?: Map<string, Precharge>;
    } = {},
  ): Promise<RenewalOutcome> {
    for (let attempt = 0; attempt < 4; attempt += 1) {
      // The scheduler's batch read is used once; a conflict (a lost claim) re-reads the seat by `_id`.
      const state = attempt === 0 && options.prefetched ? options.prefetched : await this.store.readSeat(seatId);
      if (!state) return 'unchanged';
      const { seat, occupancy } = state;
      const now = this.clock.now();
      switch (seatStep(state, cancelAtPeriodEnd, now, options.retryOverdue ?? false)) {
        case 'settle_released':
          if (seat.notice) await this.deliverNotice(seat, now);
          else if (seat.next_action_at !== null)
            await this.store.collections.seats.updateOne({ _id: seat._id }, { $set: { next_action_at: null } });
          return 'unchanged';
        case 'recover_pending':
          return this.recoverPendingSeat(seat, now);
        case 'finish_release':
          return this.finishSeatRelease(
            seat,
            occupancy.account_id === null ? (cancelAtPeriodEnd ? 'canceled' : 'vacant') : 'canceled',
            null,
            now,
          );
        case 'not_due':
          if (seat.notice) await this.deliverNotice(seat, now);
          else if (seat.next_action_at === null || seat.next_action_at.getTime() <= now.getTime()) {
            await this.store.collections.seats.updateOne(
              { _id: seat._id },
              { $set: { next_action_at: nextActionAt(seat, now, this.policy), updated_at: now } },
            );
          }
          return 'unchanged';
        case 'release': {
          const evicted = occupancy.account_id;
          const claimed = await this.store.claimOccupancy(occupancy, { account_id: null, label: null, released: true }, now);
          if (!claimed) continue;
          if (evicted) {
            const key = seatKey(seat.customer_id, evicted);
            await this.store.collections.accounts.deleteOne({ _id: key, seat_id: seat._id });
          }
          return this.finishSeatRelease(
            seat,
            evicted === null && !cancelAtPeriodEnd ? 'vacant' : 'canceled',
            evicted ? { account_id: evicted, status: 'suspended' } : null,
            now,
          );
        }
        case 'renew_free': {
          let { anchor_at, cycle, paid_until } = seat;
          while (paid_until.getTime() <= now.getTime()) ({ anchor_at, cycle, paid_until } = advancePeriod(anchor_at, cycle, now));
          await this.writeRenewal(
            seat,
            { anchor_at, cycle, paid_until, status: 'active', grace_ends_at: null, next_action_at: paid_until, updated_at: now },
            options.deferredWrites,
          );
          return 'renewed_free';
        }
        case 'wait_for_retry':
          if (seat.notice) await this.deliverNotice(seat, now);
          return 'unchanged';
        case 'charge':
          // The step guarantees an occupant: an empty seat is released instead.
          return this.chargeSeat(seat, occupancy.account_id!, now, options.deferredWrites, options.precharged);
      }
    }
    this.logger.warn({ seat_id: seatId }, 'seat kept changing under the renewal; left for the next tick');
    return 'deferred';
  }

  /** A renewal that needs nothing after it: held back in `deferred` when the caller groups writes, else written now. */
  private async writeRenewal(seat: SeatDocument, set: Partial<SeatDocument>, deferred: SeatRenewalWrites | undefined): Promise<void> {
    if (deferred) deferred.add(seat._id, set);
    else await this.store.collections.seats.updateOne({ _id: seat._id }, { $set: set });
  }

  /** The period's debit: the group's result for exactly this entry id when there is one, else a debit of its own. */
  private async debitSeat(seat: SeatDocument, precharged: Map<string, Precharge> | undefined): Promise<{ replay: boolean }> {
    const entryId = seatEntryId(seat._id, seat.paid_until);
    const known = precharged?.get(entryId);
    if (known === 'insufficient_balance') throw new AppError('insufficient_balance', 'the balance cannot cover the seat renewal');
    if (known && 'failure' in known) throw known.failure;
    if (known) return known;
    return this.wallet.debit({
      customer_id: seat.customer_id,
      entry_id: entryId,
      amount_eur_cents: this.policy.seatPriceEurCents,
      reason: 'seat',
      reference: seat._id,
    });
  }

  private async chargeSeat(
    seat: SeatDocument,
    accountId: string,
    now: Date,
    deferred?: SeatRenewalWrites,
    precharged?: Map<string, Precharge>,
  ): Promise<RenewalOutcome> {
    let replay: boolean;
    try {
      ({ replay } = await this.debitSeat(seat, precharged));
    } catch (error) {
      if (!isInsufficientBalance(error)) return this.deferSeat(seat, error, now);
      const graceEndsAt = seat.grace_ends_at ?? addHours(seat.paid_until, this.policy.gracePeriodHours);
      if (now.getTime() >= graceEndsAt.getTime()) {
        const notice: ExecutionNotice | null = seat.status === 'suspended' ? seat.notice : { account_id: accountId, status: 'suspended' };
        const updated = { ...seat, status: 'suspended' as const, grace_ends_at: graceEndsAt, notice };
        await this.store.collections.seats.updateOne(
          { _id: seat._id },
          {
            $set: {
              status: 'suspended',
              grace_ends_at: graceEndsAt,
              notice,
              next_action_at: nextActionAt(updated, now, this.policy),
              updated_at: now,
            },
          },
        );
        if (notice) await this.deliverNotice(updated, now);
        this.announceSeat(seat, accountId, 'suspended', graceEndsAt, now);
        return 'suspended';
      }
      const notice: ExecutionNotice | null = seat.status === 'past_due' ? seat.notice : { account_id: accountId, status: 'past_due' };
      const updated = { ...seat, status: 'past_due' as const, grace_ends_at: graceEndsAt, notice };
      await this.store.collections.seats.updateOne(
        { _id: seat._id },
        {
          $set: {
            status: 'past_due',
            grace_ends_at: graceEndsAt,
            notice,
            next_action_at: notice ? now : nextActionAt(updated, now, this.policy),
            updated_at: now,
          },
        },
      );
      if (notice) await this.deliverNotice(updated, now);
      this.announceSeat(seat, accountId, 'past_due', graceEndsAt, now);
      return 'past_due';
    }
    const period = advancePeriod(seat.anchor_at, seat.cycle, now);
    // Execution heard past_due or suspended (or may have: a notice still pending), so it hears active again.
    const notice: ExecutionNotice | null = seat.status !== 'active' || seat.notice ? { account_id: accountId, status: 'active' } : null;
    const set: Partial<SeatDocument> = {
      ...period,
      status: 'active',
      grace_ends_at: null,
      notice,
      next_action_at: notice ? now : period.paid_until,
      updated_at: now,
    };
    if (notice) {
      // Execution is told only once the seat says so, so this write cannot wait for the group.
      await this.store.collections.seats.updateOne({ _id: seat._id }, { $set: set });
      await this.deliverNotice({ ...seat, ...period, status: 'active', grace_ends_at: null, notice }, now);
    } else {
      await this.writeRenewal(seat, set, deferred);
    }
    // A replay means another replica (or an earlier attempt) took this period's charge already.
    return replay ? 'already_charged' : 'charged';
  }

  private async deferSeat(seat: SeatDocument, error: unknown, now: Date): Promise<RenewalOutcome> {
    this.logger.warn(
      { seat_id: seat._id, err: { message: (error as Error)?.message, code: (error as AppError)?.code } },
      'seat renewal deferred: the wallet did not answer',
    );
    await this.store.collections.seats.updateOne(
      { _id: seat._id },
      { $set: { next_action_at: new Date(now.getTime() + this.policy.failureBackoffMs), updated_at: now } },
    );
    return 'deferred';
  }

  private async finishSeatRelease(
    seat: SeatDocument,
    reason: ReleaseReason,
    notice: ExecutionNotice | null,
    now: Date,
  ): Promise<RenewalOutcome> {
    const pending = notice ?? seat.notice;
    const updated: SeatDocument = {
      ...seat,
      status: 'released',
      release_reason: reason,
      released_at: now,
      grace_ends_at: null,
      notice: pending,
    };
    await this.store.collections.seats.updateOne(
      { _id: seat._id },
      {
        $set: {
          status: 'released',
          release_reason: reason,
          released_at: now,
          grace_ends_at: null,
          notice: pending,
          next_action_at: pending ? now : null,
          updated_at: now,
        },
      },
    );
    if (pending) await this.deliverNotice(updated, now);
    return 'released';
  }

  /**
   * Tells execution whether the seat's account may trade. Kept on the seat until acknowledged; a failure
   * (execution down, deadline) is retried after the back-off by the scheduler.
   */
  private async deliverNotice(seat: SeatDocument, now: Date): Promise<void> {
    const notice = seat.notice;
    if (!notice) return;
    // Billing's own answers change before execution acts on the new status, so a client that sees its orders
    // accepted (or refused) again never reads the old status from GET /v1/subscription.
    await this.store.bumpRevision(seat.customer_id);
    try {
      await this.execution.setAccountBillingStatus(seat.customer_id, notice.account_id, notice.status);
    } catch (error) {
      this.logger.warn(
        { seat_id: seat._id, account_id: notice.account_id, status: notice.status, err: { message: (error as Error)?.message } },
        'could not tell execution the account billing status; will retry',
      );
      await this.store.collections.seats.updateOne(
        { _id: seat._id },
        { $set: { next_action_at: new Date(now.getTime() + this.policy.failureBackoffMs), updated_at: now } },
      );
      return;
    }
    this.logger.info(
      { seat_id: seat._id, account_id: notice.account_id, status: notice.status },
      'execution told the account billing status',
    );
    await this.store.collections.seats.updateOne(
      { _id: seat._id, 'notice.account_id': notice.account_id, 'notice.status': notice.status },
      { $set: { notice: null, next_action_at: nextActionAt(seat, now, this.policy), updated_at: now } },
    );
  }

  /**
   * A purchase whose debit outcome was never learned (the wallet timed out, or this replica died). If the
   * wallet's ledger holds the charge, the seat is kept as a paid empty slot; otherwise it is dropped and
   * nothing is charged.
   */
  private async recoverPendingSeat(seat: SeatDocument, now: Date): Promise<RenewalOutcome> {
    if (seat.created_at.getTime() + this.policy.pendingPurchaseRecoveryMs > now.getTime()) return 'unchanged';
    let charged: boolean;
    try {
      charged = await this.wallet.entryApplied(seat.customer_id, seatEntryId(seat._id, seat.anchor_at));
    } catch (error) {
      return this.deferSeat(seat, error, now);
    }
    if (charged) {
      await this.store.collections.seats.updateOne(
        { _id: seat._id },
        { $set: { status: 'active', next_action_at: seat.paid_until, updated_at: now } },
      );
    } else {
      // Only if still pending: a retry on another replica may have paid for it since the lookup.
      await this.store.collections.seats.updateOne(
        { _id: seat._id, status: 'pending' },
        { $set: { status: 'released', release_reason: 'abandoned', released_at: now, next_action_at: null, updated_at: now } },
      );
    }
    return 'recovered';
  }
}
