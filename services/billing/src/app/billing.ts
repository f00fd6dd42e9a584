import { customerEvent } from '@mtx/shared/customer-events';
import type { Clock } from '@mtx/shared/clock';
import { AppError } from '@mtx/shared/errors';
import type { Logger } from '@mtx/shared/logger';
import { insertIfAbsent, isDuplicateKeyError } from '@mtx/shared/mongo';
import type { BillingStore, PassReads } from '../store/billing-store';
import { addMonthsClamped } from '../domain/calendar';
import type { KeyedSerialQueue } from '../domain/keyed-queue';
import { seatKey, type AccountDocument, type OccupancyDocument, type SeatDocument, type SeatState } from '../domain/model';
import type { WalletPort } from '../domain/ports';
import {
  isSeatLive,
  projectUpcoming,
  summarizeSubscription,
  summarizeWallet,
  type SubscriptionSummary,
  type Upcoming,
  type WalletSummary,
} from '../domain/projection';
import type { BillingOptions } from './billing-options';
import type { RenewalEngine } from './renewal-engine';

export type { BillingOptions } from './billing-options';
import { ServerPurchases, type ServerView } from './server-purchases';
import { newId, requireIdentifier } from '../domain/identifiers';

export { serverView, type ServerView } from './server-purchases';
import { seatEntryId, type RenewalOutcome } from '../domain/renewals';

export interface SubscriptionAnswer extends SubscriptionSummary {
  wallet: WalletSummary | null;
}

/** How long an AssignSeat waits for another replica's in-flight assignment of the same account. */
const assignmentWaitMs = 5_000;
/** An assignment marker older than this without a seat belongs to a writer that died. */
const abandonedAssignmentMs = 60_000;

/**
 * Billing's operations. Every change to one customer runs in that customer's serial queue on this replica;
 * what must be exclusive across replicas (an account's assignment, a slot's occupancy, a pointer ordinal)
 * is an exclusive insert, and every charge is the wallet's idempotent debit.
 */
/** wallet.low_balance compares the balance with the charges of this many days. */
const lowBalanceHorizonDays = 7;

export class BillingService {
  constructor(
    private readonly store: BillingStore,
    private readonly wallet: WalletPort,
    readonly renewals: RenewalEngine,
    private readonly queue: KeyedSerialQueue,
    private readonly clock: Clock,
    private readonly options: BillingOptions,
    private readonly logger: Logger,
  ) {
    this.servers = new ServerPurchases(store, wallet, queue, clock, options, logger);
  }

  private readonly servers: ServerPurchases;

  async getUpcoming(customerId: string): Promise<Upcoming> {
    requireIdentifier(customerId, 'customer_id');
    const view = await this.store.loadView(customerId);
    return projectUpcoming(view, this.clock.now(), {
      horizonDays: this.options.horizonDays,
      seatPriceEurCents: this.options.seatPriceEurCents,
    });
  }

  /**
   * wallet.low_balance when the balance no longer covers the charges of the next 7 days; at most once a day per
   * customer (the day is in the event's id). Run after renewals charge the balance; `balanceEurCents` is the
   * balance the wallet answered the charges with, which spares asking it again; `reads`, what the scheduler's pass
   * already read of the customer, which spares most of a view reload (the view built from it serves this check only).
   */
  async checkLowBalance(customerId: string, balanceEurCents?: number, reads?: PassReads): Promise<void> {
    if (!this.options.publishEvent || !this.options.walletFeatureEnabled) return;
    const [view, balance] = await Promise.all([
      reads ? this.store.readCheckView(customerId, reads) : this.store.loadView(customerId),
      balanceEurCents ?? this.wallet.balance(customerId),
    ]);
    const now = this.clock.now();
    const upcoming = projectUpcoming(view, now, { horizonDays: lowBalanceHorizonDays, seatPriceEurCents: this.options.seatPriceEurCents });
    if (balance >= upcoming.total_eur_cents) return;
    this.options.publishEvent(
      customerEvent('wallet.low_balance', `${customerId}:${now.toISOString().slice(0, 10)}`, customerId, {
        balance_eur_cents: balance,
        due_next_7_days_eur_cents: upcoming.total_eur_cents,
      }),
    );
  }

  async getSubscription(customerId: string): Promise<SubscriptionAnswer> {
    requireIdentifier(customerId, 'customer_id');
    const [view, balance] = await Promise.all([
      this.store.loadView(customerId),
      this.options.walletFeatureEnabled ? this.wallet.balance(customerId) : Promise.resolve(null),
    ]);
    const now = this.clock.now();
    const summary = summarizeSubscription(view, now);
    if (balance === null) return { ...summary, wallet: null };
    const upcoming = projectUpcoming(view, now, {
      horizonDays: this.options.horizonDays,
      seatPriceEurCents: this.options.seatPriceEurCents,
    });
    return { ...summary, wallet: summarizeWallet(balance, upcoming) };
  }

  async updateSubscription(customerId: string, cancelAtPeriodEnd: boolean | undefined): Promise<SubscriptionAnswer> {
    requireIdentifier(customerId, 'customer_id');
    if (cancelAtPeriodEnd !== undefined) {
      if (typeof cancelAtPeriodEnd !== 'boolean')
        throw new AppError('invalid_request', 'cancel_at_period_end must be a boolean', { param: 'cancel_at_period_end' });
      await this.queue.run(customerId, async () => {
        const update = { $set: { cancel_at_period_end: cancelAtPeriodEnd, updated_at: this.clock.now() } };
        try {
          await this.store.collections.settings.updateOne({ _id: customerId }, update, { upsert: true });
        } catch (error) {
          // A concurrent first upsert won; the document exists now.
          if (!isDuplicateKeyError(error)) throw error;
          await this.store.collections.settings.updateOne({ _id: customerId }, update);
        }
        await this.store.bumpRevision(customerId);
      });
      this.logger.info({ customer_id: customerId, cancel_at_period_end: cancelAtPeriodEnd }, 'subscription renewal setting changed');
      // Anything already past its date ends (or resumes) now rather than at the next tick.
      await this.processCustomerNow(customerId, { retryOverdue: false });
    }
    return this.getSubscription(customerId);
  }

  /**
   * Runs every item of the customer whose date has passed (and, after a credit, every past-due or suspended
   * one) through the renewal engine now.
   */
  async processCustomerNow(customerId: string, options: { retryOverdue: boolean; freshView?: boolean }): Promise<RenewalOutcome[]> {
    return this.queue.run(customerId, async () => {
      // A fresh (possibly announcement-bounded) view only chooses which items to look at; each is re-read by
      // `_id` before anything is charged, and an item a stale view missed is the scheduler's next time.
      const view = await this.store.loadView(customerId, { fresh: options.freshView ?? false });
      const now = this.clock.now();
      const outcomes: RenewalOutcome[] = [];
      for (const state of view.seats) {
        const overdue = state.seat.paid_until.getTime() <= now.getTime();
        const actionDue = state.seat.next_action_at !== null && state.seat.next_action_at.getTime() <= now.getTime();
        if (overdue || actionDue) outcomes.push(await this.renewals.processSeat(state.seat._id, view.cancel_at_period_end, options));
      }
      for (const state of view.servers) {
        const overdue = state.server.paid_until.getTime() <= now.getTime();
        const actionDue = state.server.next_action_at !== null && state.server.next_action_at.getTime() <= now.getTime();
        if (overdue || actionDue) outcomes.push(await this.renewals.processServer(state.server._id, view.cancel_at_period_end, options));
      }
      if (outcomes.some((outcome) => outcome !== 'unchanged')) await this.store.bumpRevision(customerId);
      return outcomes;
    });
  }

  // ---- seats ----

  /**
   * Gives the account a seat: the one it already has, else a free paid slot (bonus slots first), else a new
   * seat bought from the balance (`insufficient_balance` when it cannot be paid). Operator-granted (bonus)
   * requests take a free bonus slot or a new bonus seat, never a paid slot.
   */
  async assignSeat(customerId: string, accountId: string, label: string, bonus: boolean): Promise<SeatState> {
    requireIdentifier(customerId, 'customer_id');
    requireIdentifier(accountId, 'account_id');
    const cleanLabel = typeof label === 'string' ? label.slice(0, 128) : '';
    return this.queue.run(customerId, () => this.assignSeatSerially(customerId, accountId, cleanLabel, Boolean(bonus)));
  }

  private async assignSeatSerially(customerId: string, accountId: string, label: string, bonus: boolean): Promise<SeatState> {
    const key = seatKey(customerId, accountId);
    const waitUntil = Date.now() + assignmentWaitMs;
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const now = this.clock.now();
      let marker = await this.store.collections.accounts.findOne({ _id: key });
      let ownMarker = false;
      if (!marker) {
        const fresh: AccountDocument = { _id: key, customer_id: customerId, account_id: accountId, seat_id: null, created_at: new Date() };
        if (!(await insertIfAbsent(this.store.collections.accounts, fresh))) continue;
        marker = fresh;
        ownMarker = true;
      }
      if (marker.seat_id) {
        const state = await this.store.readSeat(marker.seat_id);
        const settings = await this.store.readSettings(customerId);
        if (state) {
          if (state.occupancy.account_id === accountId && isSeatLive(state, now, settings?.cancel_at_period_end ?? false)) return state;
          if (state.seat.status === 'pending' && state.occupancy.account_id === null)
            return this.completeSeatPurchase(state, accountId, label, key);
          if (state.occupancy.account_id === null && this.isFreeSlot(state, now)) {
            const claimed = await this.store.claimOccupancy(state.occupancy, { account_id: accountId, label, released: false }, now);
            if (claimed) {
              await this.store.bumpRevision(customerId);
              return { seat: state.seat, occupancy: claimed };
            }
            continue;
          }
        }
        // The marker points at a seat the account no longer holds (released, cancelled): start over.
        await this.store.collections.accounts.deleteOne({ _id: key, seat_id: marker.seat_id });
        continue;
      }
      if (!ownMarker) {
        // Another replica is assigning this account right now; wait for it, unless it died mid-way.
        if (Date.now() - marker.created_at.getTime() > abandonedAssignmentMs) {
          await this.store.collections.accounts.deleteOne({ _id: key, seat_id: null });
          continue;
        }
        if (Date.now() > waitUntil) throw new AppError('unavailable', 'this account is being connected by another request; retry shortly');
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      try {
        return await this.takeOrBuySeat(customerId, accountId, label, bonus, key);
      } catch (error) {
        // Leave no marker behind a failed assignment, so the next attempt starts clean.
        await this.store.collections.accounts.deleteOne({ _id: key, seat_id: null }).catch(() => undefined);
        throw error;
      }
    }
    throw new AppError('unavailable', 'could not assign a seat because of concurrent changes; retry');
  }

  private isFreeSlot(state: SeatState, now: Date): boolean {
    return (
      state.seat.status === 'active' &&
      !state.occupancy.released &&
      state.occupancy.account_id === null &&
      state.seat.paid_until.getTime() > now.getTime()
    );
  }

  private async takeOrBuySeat(customerId: string, accountId: string, label: string, bonus: boolean, key: string): Promise<SeatState> {
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const now = this.clock.now();
      const view = await this.store.loadView(customerId);
      const candidates = view.seats
        .filter((state) => this.isFreeSlot(state, now) && (!bonus || state.seat.bonus))
        .sort((a, b) => Number(b.seat.bonus) - Number(a.seat.bonus) || b.seat.paid_until.getTime() - a.seat.paid_until.getTime());
      const slot = candidates[0];
      if (!slot) break;
      const claimed = await this.store.claimOccupancy(slot.occupancy, { account_id: accountId, label, released: false }, now);
      if (!claimed) {
        // Another writer changed this slot; read the customer again.
        this.store.forget(customerId);
        continue;
      }
      await this.store.collections.accounts.updateOne({ _id: key }, { $set: { seat_id: slot.seat._id } });
      await this.store.bumpRevision(customerId);
      this.logger.info({ customer_id: customerId, account_id: accountId, seat_id: slot.seat._id }, 'account took a free seat');
      return { seat: slot.seat, occupancy: claimed };
    }
    const now = this.clock.now();
    const seatId = newId('seat');
    // The pointer first, then the documents: a seat that exists is always listed (a pointer to a seat never
    // inserted is skipped by every read), so a purchase cut short anywhere cannot leave a paid seat unlisted.
    const ordinal = await this.store.allocatePointer(customerId, 'seat', seatId, now);
    const seat: SeatDocument = {
      _id: seatId,
      customer_id: customerId,
      ordinal,
      bonus,
      status: bonus ? 'active' : 'pending',
      anchor_at: now,
      cycle: 1,
      paid_until: addMonthsClamped(now, 1),
      grace_ends_at: null,
      next_action_at: bonus ? addMonthsClamped(now, 1) : new Date(now.getTime() + this.options.pendingPurchaseRecoveryMs),
      release_reason: null,
      released_at: null,
      notice: null,
      created_at: now,
      updated_at: now,
    };
    const occupancy: OccupancyDocument = {
      _id: seatId,
      customer_id: customerId,
      generation: 0,
      account_id: null,
      label: null,
      released: false,
      updated_at: now,
    };
    await this.store.collections.seats.insertOne(seat);
    await this.store.collections.occupancy.insertOne(occupancy);
    await this.store.collections.accounts.updateOne({ _id: key }, { $set: { seat_id: seatId } });
    if (bonus) {
      const claimed = await this.store.claimOccupancy(occupancy, { account_id: accountId, label, released: false }, now);
      await this.store.bumpRevision(customerId, { seatCount: seat.ordinal + 1 });
      this.logger.info({ customer_id: customerId, account_id: accountId, seat_id: seatId }, 'bonus seat granted');
      return { seat, occupancy: claimed ?? occupancy };
    }
    return this.completeSeatPurchase({ seat, occupancy }, accountId, label, key);
  }

  /** Charges a pending seat's first month (idempotently: a retry after a timeout charges nothing twice) and seats the account. */
  private async completeSeatPurchase(state: SeatState, accountId: string, label: string, key: string): Promise<SeatState> {
    const { seat } = state;
    seat.ordinal = await this.store.ensurePointer(seat.customer_id, 'seat', seat, this.clock.now());
    try {
      await this.wallet.debit({
        customer_id: seat.customer_id,
        entry_id: seatEntryId(seat._id, seat.anchor_at),
        amount_eur_cents: this.options.seatPriceEurCents,
        reason: 'seat',
        reference: seat._id,
      });
    } catch (error) {
      const now = this.clock.now();
      if (error instanceof AppError && error.code === 'insufficient_balance') {
        await this.store.collections.seats.updateOne(
          { _id: seat._id },
          { $set: { status: 'released', release_reason: 'payment_failed', released_at: now, next_action_at: null, updated_at: now } },
        );
        await this.store.collections.accounts.deleteOne({ _id: key, seat_id: seat._id });
        await this.store.bumpRevision(seat.customer_id);
        throw new AppError(
          'insufficient_balance',
          `the balance cannot pay for a new seat (EUR ${(this.options.seatPriceEurCents / 100).toFixed(2)} a month); top up and retry`,
          {
            details: { required_eur_cents: this.options.seatPriceEurCents },
          },
        );
      }
      // Unknown outcome: the seat stays pending; a retry of this call, or the scheduler's recovery, settles it.
      this.logger.warn({ seat_id: seat._id, err: { message: (error as Error)?.message } }, 'seat purchase outcome unknown; left pending');
      throw error instanceof AppError ? error : new AppError('unavailable', 'the wallet did not answer; retry', { cause: error });
    }
    const now = this.clock.now();
    await this.store.collections.seats.updateOne(
      { _id: seat._id },
      { $set: { status: 'active', next_action_at: seat.paid_until, updated_at: now } },
    );
    let occupancy = state.occupancy;
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const claimed = await this.store.claimOccupancy(occupancy, { account_id: accountId, label, released: false }, now);
      if (claimed) {
        occupancy = claimed;
        break;
      }
      occupancy = (await this.store.readSeat(seat._id))?.occupancy ?? occupancy;
      if (occupancy.account_id === accountId) break;
    }
    await this.store.bumpRevision(seat.customer_id, { seatCount: seat.ordinal + 1 });
    this.logger.info({ customer_id: seat.customer_id, account_id: accountId, seat_id: seat._id }, 'seat bought from the balance');
    return { seat: { ...seat, status: 'active' }, occupancy };
  }

  /** Empties the account's seat; the slot stays paid until its date and is then released unbilled. */
  async releaseSeat(customerId: string, accountId: string): Promise<SeatState> {
    requireIdentifier(customerId, 'customer_id');
    requireIdentifier(accountId, 'account_id');
    return this.queue.run(customerId, async () => {
      const key = seatKey(customerId, accountId);
      const marker = await this.store.collections.accounts.findOne({ _id: key });
      if (!marker?.seat_id) throw new AppError('not_found', 'this account holds no seat', { param: 'account_id' });
      let state = await this.store.readSeat(marker.seat_id);
      for (let attempt = 0; state && attempt < 10 && state.occupancy.account_id === accountId && !state.occupancy.released; attempt += 1) {
        const claimed = await this.store.claimOccupancy(
          state.occupancy,
          { account_id: null, label: null, released: false },
          this.clock.now(),
        );
        if (claimed) {
          state = { seat: state.seat, occupancy: claimed };
          break;
        }
        state = await this.store.readSeat(marker.seat_id);
      }
      await this.store.collections.accounts.deleteOne({ _id: key });
      await this.store.bumpRevision(customerId);
      if (!state) throw new AppError('not_found', 'this account holds no seat', { param: 'account_id' });
      this.logger.info({ customer_id: customerId, account_id: accountId, seat_id: state.seat._id }, 'seat emptied');
      return state;
    });
  }
  // ---- servers (ServerPurchases) ----

  listServerPlans(): Array<{ plan: string; price_eur_cents: number }> {
    return this.servers.listServerPlans();
  }

  listServers(customerId: string): Promise<ServerView[]> {
    return this.servers.listServers(customerId);
  }

  createServer(customerId: string, plan: string, label: string, requestedServerId?: string): Promise<ServerView> {
    return this.servers.createServer(customerId, plan, label, requestedServerId);
  }

  cancelServer(customerId: string, serverId: string): Promise<ServerView> {
    return this.servers.cancelServer(customerId, serverId);
  }
}
