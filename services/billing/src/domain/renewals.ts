import { AppError } from '@mtx/shared/errors';
import type { Clock } from '@mtx/shared/clock';
import type { Logger } from '@mtx/shared/logger';
import type { BillingStore } from '../store/billing-store';
import { addHours, addMonthsClamped, periodEnd, periodKey } from './calendar';
import { seatKey, type ExecutionNotice, type ReleaseReason, type SeatDocument, type SeatState, type ServerDocument } from './model';
import type { ExecutionPort, WalletPort } from './ports';

export interface RenewalPolicy {
  seatPriceEurCents: number;
  gracePeriodHours: number;
  pastDueRetryIntervalMs: number;
  suspendedRetryIntervalMs: number;
  failureBackoffMs: number;
  pendingPurchaseRecoveryMs: number;
}

/** What processing one item did; the scheduler's report counts these. */
export type RenewalOutcome = 'charged' | 'already_charged' | 'renewed_free' | 'released' | 'past_due' | 'suspended' | 'recovered' | 'deferred' | 'unchanged';

export function seatEntryId(seatId: string, periodStart: Date): string {
  return `seat:${seatId}:${periodKey(periodStart)}`;
}

export function serverEntryId(serverId: string, periodStart: Date): string {
  return `server:${serverId}:${periodKey(periodStart)}`;
}

/** Where a successful charge of the period starting at `paid_until` leaves the dates. */
export function advancePeriod(anchor: Date, cycle: number, now: Date): { anchor_at: Date; cycle: number; paid_until: Date } {
  const paidUntil = periodEnd(anchor, cycle + 1);
  if (paidUntil.getTime() > now.getTime()) return { anchor_at: anchor, cycle: cycle + 1, paid_until: paidUntil };
  // Paid more than a month late (it was suspended): a fresh month starts at the payment.
  return { anchor_at: now, cycle: 1, paid_until: addMonthsClamped(now, 1) };
}

/**
 * Seat renewals held back to be written together: the scheduler passes one per customer and writes what it
 * collected in a few commands after the customer's debits. Only a renewal that needs nothing more (no notice
 * for execution) is held back; a crash before the write leaves the seat due with its old dates, so the next
 * pass replays the same debit (no second charge) and writes it then.
 */
export class SeatRenewalWrites {
  readonly writes: Array<{ seatId: string; set: Partial<SeatDocument> }> = [];

  add(seatId: string, set: Partial<SeatDocument>): void {
    this.writes.push({ seatId, set });
  }
}

function isInsufficientBalance(error: unknown): boolean {
  return error instanceof AppError && error.code === 'insufficient_balance';
}

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
  ) {}

  private baseNextAction(document: { status: string; paid_until: Date; grace_ends_at: Date | null }, now: Date): Date | null {
    switch (document.status) {
      case 'active':
        return document.paid_until;
      case 'past_due': {
        const retryAt = new Date(now.getTime() + this.policy.pastDueRetryIntervalMs);
        return document.grace_ends_at && document.grace_ends_at.getTime() < retryAt.getTime() ? document.grace_ends_at : retryAt;
      }
      case 'suspended':
        return new Date(now.getTime() + this.policy.suspendedRetryIntervalMs);
      default:
        return null;
    }
  }

  /** Brings one seat up to date. `cancelAtPeriodEnd` is the customer's setting, read once per batch. */
  async processSeat(
    customerId: string,
    seatId: string,
    cancelAtPeriodEnd: boolean,
    options: { retryOverdue?: boolean; prefetched?: SeatState; deferredWrites?: SeatRenewalWrites } = {},
  ): Promise<RenewalOutcome> {
    for (let attempt = 0; attempt < 4; attempt += 1) {
      // The scheduler's batch read is used once; a conflict (a lost claim) re-reads the seat by `_id`.
      const state = attempt === 0 && options.prefetched ? options.prefetched : await this.store.readSeat(customerId, seatId);
      if (!state) return 'unchanged';
      const { seat, occupancy } = state;
      const now = this.clock.now();
      if (seat.status === 'released') {
        if (seat.notice) await this.deliverNotice(seat, now);
        else if (seat.next_action_at !== null) await this.store.collections.seats(seat.customer_id).updateOne({ _id: seat._id }, { $set: { next_action_at: null } });
        return 'unchanged';
      }
      if (seat.status === 'pending') return this.recoverPendingSeat(seat, now);
      if (occupancy.released) return this.finishSeatRelease(seat, occupancy.account_id === null ? (cancelAtPeriodEnd ? 'canceled' : 'vacant') : 'canceled', null, now);
      const due = seat.paid_until.getTime() <= now.getTime();
      if (!due) {
        if (seat.notice) await this.deliverNotice(seat, now);
        else if (seat.next_action_at === null || seat.next_action_at.getTime() <= now.getTime()) {
          await this.store.collections.seats(seat.customer_id).updateOne({ _id: seat._id }, { $set: { next_action_at: this.baseNextAction(seat, now), updated_at: now } });
        }
        return 'unchanged';
      }
      if (occupancy.account_id === null || cancelAtPeriodEnd) {
        const evicted = occupancy.account_id;
        const claimed = await this.store.claimOccupancy(occupancy, { account_id: null, label: null, released: true }, now);
        if (!claimed) continue;
        if (evicted) {
          const key = seatKey(seat.customer_id, evicted);
          await this.store.collections.accounts(seat.customer_id).deleteOne({ _id: key, seat_id: seat._id });
        }
        return this.finishSeatRelease(seat, evicted === null && !cancelAtPeriodEnd ? 'vacant' : 'canceled', evicted ? { account_id: evicted, status: 'suspended' } : null, now);
      }
      if (seat.bonus) {
        let { anchor_at, cycle, paid_until } = seat;
        while (paid_until.getTime() <= now.getTime()) ({ anchor_at, cycle, paid_until } = advancePeriod(anchor_at, cycle, now));
        await this.writeRenewal(seat, { anchor_at, cycle, paid_until, status: 'active', grace_ends_at: null, next_action_at: paid_until, updated_at: now }, options.deferredWrites);
        return 'renewed_free';
      }
      if (!options.retryOverdue && seat.next_action_at && seat.next_action_at.getTime() > now.getTime() && seat.status !== 'active') {
        // A past-due or suspended seat waits for its retry time or a credit.
        if (seat.notice) await this.deliverNotice(seat, now);
        return 'unchanged';
      }
      return this.chargeSeat(seat, occupancy.account_id, now, options.deferredWrites);
    }
    this.logger.warn({ seat_id: seatId }, 'seat kept changing under the renewal; left for the next tick');
    return 'deferred';
  }

  /** A renewal that needs nothing after it: held back in `deferred` when the caller groups writes, else written now. */
  private async writeRenewal(seat: SeatDocument, set: Partial<SeatDocument>, deferred: SeatRenewalWrites | undefined): Promise<void> {
    if (deferred) deferred.add(seat._id, set);
    else await this.store.collections.seats(seat.customer_id).updateOne({ _id: seat._id }, { $set: set });
  }

  private async chargeSeat(seat: SeatDocument, accountId: string, now: Date, deferred?: SeatRenewalWrites): Promise<RenewalOutcome> {
    let replay: boolean;
    try {
      ({ replay } = await this.wallet.debit({ customer_id: seat.customer_id, entry_id: seatEntryId(seat._id, seat.paid_until), amount_eur_cents: this.policy.seatPriceEurCents, reason: 'seat', reference: seat._id }));
    } catch (error) {
      if (!isInsufficientBalance(error)) return this.deferSeat(seat, error, now);
      const graceEndsAt = seat.grace_ends_at ?? addHours(seat.paid_until, this.policy.gracePeriodHours);
      if (now.getTime() >= graceEndsAt.getTime()) {
        const notice: ExecutionNotice | null = seat.status === 'suspended' ? seat.notice : { account_id: accountId, status: 'suspended' };
        const updated = { ...seat, status: 'suspended' as const, grace_ends_at: graceEndsAt, notice };
        await this.store.collections.seats(seat.customer_id).updateOne(
          { _id: seat._id },
          { $set: { status: 'suspended', grace_ends_at: graceEndsAt, notice, next_action_at: this.baseNextAction(updated, now), updated_at: now } },
        );
        if (notice) await this.deliverNotice(updated, now);
        return 'suspended';
      }
      const notice: ExecutionNotice | null = seat.status === 'past_due' ? seat.notice : { account_id: accountId, status: 'past_due' };
      const updated = { ...seat, status: 'past_due' as const, grace_ends_at: graceEndsAt, notice };
      await this.store.collections.seats(seat.customer_id).updateOne(
        { _id: seat._id },
        { $set: { status: 'past_due', grace_ends_at: graceEndsAt, notice, next_action_at: notice ? now : this.baseNextAction(updated, now), updated_at: now } },
      );
      if (notice) await this.deliverNotice(updated, now);
      return 'past_due';
    }
    const period = advancePeriod(seat.anchor_at, seat.cycle, now);
    // Execution heard past_due or suspended (or may have: a notice still pending), so it hears active again.
    const notice: ExecutionNotice | null = seat.status !== 'active' || seat.notice ? { account_id: accountId, status: 'active' } : null;
    const set: Partial<SeatDocument> = { ...period, status: 'active', grace_ends_at: null, notice, next_action_at: notice ? now : period.paid_until, updated_at: now };
    if (notice) {
      // Execution is told only once the seat says so, so this write cannot wait for the group.
      await this.store.collections.seats(seat.customer_id).updateOne({ _id: seat._id }, { $set: set });
      await this.deliverNotice({ ...seat, ...period, status: 'active', grace_ends_at: null, notice }, now);
    } else {
      await this.writeRenewal(seat, set, deferred);
    }
    // A replay means another replica (or an earlier attempt) took this period's charge already.
    return replay ? 'already_charged' : 'charged';
  }

  private async deferSeat(seat: SeatDocument, error: unknown, now: Date): Promise<RenewalOutcome> {
    this.logger.warn({ seat_id: seat._id, err: { message: (error as Error)?.message, code: (error as AppError)?.code } }, 'seat renewal deferred: the wallet did not answer');
    await this.store.collections.seats(seat.customer_id).updateOne({ _id: seat._id }, { $set: { next_action_at: new Date(now.getTime() + this.policy.failureBackoffMs), updated_at: now } });
    return 'deferred';
  }

  private async finishSeatRelease(seat: SeatDocument, reason: ReleaseReason, notice: ExecutionNotice | null, now: Date): Promise<RenewalOutcome> {
    const pending = notice ?? seat.notice;
    const updated: SeatDocument = { ...seat, status: 'released', release_reason: reason, released_at: now, grace_ends_at: null, notice: pending };
    await this.store.collections.seats(seat.customer_id).updateOne(
      { _id: seat._id },
      { $set: { status: 'released', release_reason: reason, released_at: now, grace_ends_at: null, notice: pending, next_action_at: pending ? now : null, updated_at: now } },
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
    try {
      await this.execution.setAccountBillingStatus(seat.customer_id, notice.account_id, notice.status);
    } catch (error) {
      this.logger.warn({ seat_id: seat._id, account_id: notice.account_id, status: notice.status, err: { message: (error as Error)?.message } }, 'could not tell execution the account billing status; will retry');
      await this.store.collections.seats(seat.customer_id).updateOne({ _id: seat._id }, { $set: { next_action_at: new Date(now.getTime() + this.policy.failureBackoffMs), updated_at: now } });
      return;
    }
    this.logger.info({ seat_id: seat._id, account_id: notice.account_id, status: notice.status }, 'execution told the account billing status');
    await this.store.collections.seats(seat.customer_id).updateOne(
      { _id: seat._id, 'notice.account_id': notice.account_id, 'notice.status': notice.status },
      { $set: { notice: null, next_action_at: this.baseNextAction(seat, now), updated_at: now } },
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
      charged = (await this.wallet.recentEntryIds(seat.customer_id, 200)).includes(seatEntryId(seat._id, seat.anchor_at));
    } catch (error) {
      return this.deferSeat(seat, error, now);
    }
    if (charged) {
      await this.store.collections.seats(seat.customer_id).updateOne({ _id: seat._id }, { $set: { status: 'active', next_action_at: seat.paid_until, updated_at: now } });
    } else {
      await this.store.collections.seats(seat.customer_id).updateOne({ _id: seat._id }, { $set: { status: 'released', release_reason: 'abandoned', released_at: now, next_action_at: null, updated_at: now } });
    }
    return 'recovered';
  }

  /** Brings one server up to date: renewed from the balance on its own date unless its renewal was stopped. */
  async processServer(customerId: string, serverId: string, cancelAtPeriodEnd: boolean, options: { retryOverdue?: boolean } = {}): Promise<RenewalOutcome> {
    const state = await this.store.readServer(customerId, serverId);
    if (!state) return 'unchanged';
    const { server } = state;
    const now = this.clock.now();
    if (server.status === 'released') {
      if (server.next_action_at !== null) await this.store.collections.servers(server.customer_id).updateOne({ _id: server._id }, { $set: { next_action_at: null } });
      return 'unchanged';
    }
    if (server.status === 'pending') return this.recoverPendingServer(server, now);
    if (server.paid_until.getTime() > now.getTime()) {
      if (server.next_action_at === null || server.next_action_at.getTime() <= now.getTime()) {
        await this.store.collections.servers(server.customer_id).updateOne({ _id: server._id }, { $set: { next_action_at: this.baseNextAction(server, now), updated_at: now } });
      }
      return 'unchanged';
    }
    if (state.cancel_at_period_end || cancelAtPeriodEnd) {
      await this.store.collections.servers(server.customer_id).updateOne(
        { _id: server._id },
        { $set: { status: 'released', release_reason: 'canceled', released_at: now, grace_ends_at: null, next_action_at: null, updated_at: now } },
      );
      return 'released';
    }
    if (!options.retryOverdue && server.status !== 'active' && server.next_action_at && server.next_action_at.getTime() > now.getTime()) return 'unchanged';
    let replay: boolean;
    try {
      ({ replay } = await this.wallet.debit({ customer_id: server.customer_id, entry_id: serverEntryId(server._id, server.paid_until), amount_eur_cents: server.price_eur_cents, reason: 'server', reference: server._id }));
    } catch (error) {
      if (!isInsufficientBalance(error)) {
        this.logger.warn({ server_id: server._id, err: { message: (error as Error)?.message } }, 'server renewal deferred: the wallet did not answer');
        await this.store.collections.servers(server.customer_id).updateOne({ _id: server._id }, { $set: { next_action_at: new Date(now.getTime() + this.policy.failureBackoffMs), updated_at: now } });
        return 'deferred';
      }
      const graceEndsAt = server.grace_ends_at ?? addHours(server.paid_until, this.policy.gracePeriodHours);
      const status = now.getTime() >= graceEndsAt.getTime() ? ('suspended' as const) : ('past_due' as const);
      await this.store.collections.servers(server.customer_id).updateOne(
        { _id: server._id },
        { $set: { status, grace_ends_at: graceEndsAt, next_action_at: this.baseNextAction({ ...server, status, grace_ends_at: graceEndsAt }, now), updated_at: now } },
      );
      return status;
    }
    const period = advancePeriod(server.anchor_at, server.cycle, now);
    await this.store.collections.servers(server.customer_id).updateOne({ _id: server._id }, { $set: { ...period, status: 'active', grace_ends_at: null, next_action_at: period.paid_until, updated_at: now } });
    return replay ? 'already_charged' : 'charged';
  }

  private async recoverPendingServer(server: ServerDocument, now: Date): Promise<RenewalOutcome> {
    if (server.created_at.getTime() + this.policy.pendingPurchaseRecoveryMs > now.getTime()) return 'unchanged';
    let charged: boolean;
    try {
      charged = (await this.wallet.recentEntryIds(server.customer_id, 200)).includes(serverEntryId(server._id, server.anchor_at));
    } catch {
      await this.store.collections.servers(server.customer_id).updateOne({ _id: server._id }, { $set: { next_action_at: new Date(now.getTime() + this.policy.failureBackoffMs) } });
      return 'deferred';
    }
    await this.store.collections.servers(server.customer_id).updateOne(
      { _id: server._id },
      charged
        ? { $set: { status: 'active', next_action_at: server.paid_until, updated_at: now } }
        : { $set: { status: 'released', release_reason: 'abandoned', released_at: now, next_action_at: null, updated_at: now } },
    );
    return 'recovered';
  }
}
