import crypto from 'node:crypto';
import type { Clock } from '@mtx/shared/clock';
import { AppError } from '@mtx/shared/errors';
import type { Logger } from '@mtx/shared/logger';
import { insertIfAbsent, isDuplicateKeyError } from '@mtx/shared/mongo';
import type { ServerPlans } from '@mtx/shared/server-plans';
import type { BillingStore } from '../store/billing-store';
import { addMonthsClamped } from './calendar';
import type { KeyedSerialQueue } from './keyed-queue';
import {
  seatKey,
  type AccountDocument,
  type OccupancyDocument,
  type SeatDocument,
  type SeatState,
  type ServerDocument,
  type ServerState,
} from './model';
import type { WalletPort } from './ports';
import {
  isSeatLive,
  isServerLive,
  projectUpcoming,
  summarizeSubscription,
  summarizeWallet,
  type SubscriptionSummary,
  type Upcoming,
  type WalletSummary,
} from './projection';
import { type RenewalEngine, seatEntryId, serverEntryId, type RenewalOutcome } from './renewals';

export interface BillingOptions {
  seatPriceEurCents: number;
  serverPlans: ServerPlans;
  walletFeatureEnabled: boolean;
  horizonDays: number;
  pendingPurchaseRecoveryMs: number;
}

export interface SubscriptionAnswer extends SubscriptionSummary {
  wallet: WalletSummary | null;
}

export interface ServerView {
  id: string;
  plan: string;
  label: string;
  price_eur_cents: number;
  status: 'active' | 'past_due' | 'suspended';
  paid_until: Date;
  cancel_at_period_end: boolean;
  grace_ends_at: Date | null;
  created_at: Date;
}

const identifierPattern = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;
/** How long an AssignSeat waits for another replica's in-flight assignment of the same account. */
const assignmentWaitMs = 5_000;
/** An assignment marker older than this without a seat belongs to a writer that died. */
const abandonedAssignmentMs = 60_000;

function requireIdentifier(value: unknown, param: string): string {
  if (typeof value !== 'string' || !identifierPattern.test(value)) {
    throw new AppError('invalid_request', `${param} must be 1-128 characters of letters, digits and _ . : -`, { param });
  }
  return value;
}

function newId(prefix: string): string {
  return `${prefix}_${crypto.randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;
}

export function serverView(state: ServerState): ServerView {
  const { server } = state;
  return {
    id: server._id,
    plan: server.plan,
    label: server.label,
    price_eur_cents: server.price_eur_cents,
    status: server.status as ServerView['status'],
    paid_until: server.paid_until,
    cancel_at_period_end: state.cancel_at_period_end,
    grace_ends_at: server.grace_ends_at,
    created_at: server.created_at,
  };
}

/**
 * Billing's operations. Every change to one customer runs in that customer's serial queue on this replica;
 * what must be exclusive across replicas (an account's assignment, a slot's occupancy, a pointer ordinal)
 * is an exclusive insert, and every charge is the wallet's idempotent debit.
 */
export class BillingService {
  constructor(
    private readonly store: BillingStore,
    private readonly wallet: WalletPort,
    readonly renewals: RenewalEngine,
    private readonly queue: KeyedSerialQueue,
    private readonly clock: Clock,
    private readonly options: BillingOptions,
    private readonly logger: Logger,
  ) {}

  async getUpcoming(customerId: string): Promise<Upcoming> {
    requireIdentifier(customerId, 'customer_id');
    const view = await this.store.loadView(customerId);
    return projectUpcoming(view, this.clock.now(), {
      horizonDays: this.options.horizonDays,
      seatPriceEurCents: this.options.seatPriceEurCents,
    });
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
          await this.store.collections.settings(customerId).updateOne({ _id: customerId }, update, { upsert: true });
        } catch (error) {
          // A concurrent first upsert won; the document exists now.
          if (!isDuplicateKeyError(error)) throw error;
          await this.store.collections.settings(customerId).updateOne({ _id: customerId }, update);
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
        if (overdue || actionDue)
          outcomes.push(await this.renewals.processSeat(customerId, state.seat._id, view.cancel_at_period_end, options));
      }
      for (const state of view.servers) {
        const overdue = state.server.paid_until.getTime() <= now.getTime();
        const actionDue = state.server.next_action_at !== null && state.server.next_action_at.getTime() <= now.getTime();
        if (overdue || actionDue)
          outcomes.push(await this.renewals.processServer(customerId, state.server._id, view.cancel_at_period_end, options));
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
      let marker = await this.store.collections.accounts(customerId).findOne({ _id: key });
      let ownMarker = false;
      if (!marker) {
        const fresh: AccountDocument = { _id: key, customer_id: customerId, account_id: accountId, seat_id: null, created_at: new Date() };
        if (!(await insertIfAbsent(this.store.collections.accounts(customerId), fresh))) continue;
        marker = fresh;
        ownMarker = true;
      }
      if (marker.seat_id) {
        const state = await this.store.readSeat(customerId, marker.seat_id);
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
        await this.store.collections.accounts(customerId).deleteOne({ _id: key, seat_id: marker.seat_id });
        continue;
      }
      if (!ownMarker) {
        // Another replica is assigning this account right now; wait for it, unless it died mid-way.
        if (Date.now() - marker.created_at.getTime() > abandonedAssignmentMs) {
          await this.store.collections.accounts(customerId).deleteOne({ _id: key, seat_id: null });
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
        await this.store.collections
          .accounts(customerId)
          .deleteOne({ _id: key, seat_id: null })
          .catch(() => undefined);
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
      await this.store.collections.accounts(customerId).updateOne({ _id: key }, { $set: { seat_id: slot.seat._id } });
      await this.store.bumpRevision(customerId);
      this.logger.info({ customer_id: customerId, account_id: accountId, seat_id: slot.seat._id }, 'account took a free seat');
      return { seat: slot.seat, occupancy: claimed };
    }
    const now = this.clock.now();
    const seatId = newId('seat');
    const seat: SeatDocument = {
      _id: seatId,
      customer_id: customerId,
      ordinal: -1,
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
    await this.store.collections.seats(customerId).insertOne(seat);
    await this.store.collections.occupancy(customerId).insertOne(occupancy);
    await this.store.collections.accounts(customerId).updateOne({ _id: key }, { $set: { seat_id: seatId } });
    seat.ordinal = await this.store.allocatePointer(customerId, 'seat', seatId, now);
    await this.store.collections.seats(customerId).updateOne({ _id: seatId }, { $set: { ordinal: seat.ordinal } });
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
        await this.store.collections
          .seats(seat.customer_id)
          .updateOne(
            { _id: seat._id },
            { $set: { status: 'released', release_reason: 'payment_failed', released_at: now, next_action_at: null, updated_at: now } },
          );
        await this.store.collections.accounts(seat.customer_id).deleteOne({ _id: key, seat_id: seat._id });
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
    await this.store.collections
      .seats(seat.customer_id)
      .updateOne({ _id: seat._id }, { $set: { status: 'active', next_action_at: seat.paid_until, updated_at: now } });
    let occupancy = state.occupancy;
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const claimed = await this.store.claimOccupancy(occupancy, { account_id: accountId, label, released: false }, now);
      if (claimed) {
        occupancy = claimed;
        break;
      }
      occupancy = (await this.store.readSeat(seat.customer_id, seat._id))?.occupancy ?? occupancy;
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
      const marker = await this.store.collections.accounts(customerId).findOne({ _id: key });
      if (!marker?.seat_id) throw new AppError('not_found', 'this account holds no seat', { param: 'account_id' });
      let state = await this.store.readSeat(customerId, marker.seat_id);
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
        state = await this.store.readSeat(customerId, marker.seat_id);
      }
      await this.store.collections.accounts(customerId).deleteOne({ _id: key });
      await this.store.bumpRevision(customerId);
      if (!state) throw new AppError('not_found', 'this account holds no seat', { param: 'account_id' });
      this.logger.info({ customer_id: customerId, account_id: accountId, seat_id: state.seat._id }, 'seat emptied');
      return state;
    });
  }

  // ---- servers ----

  listServerPlans(): Array<{ plan: string; price_eur_cents: number }> {
    return [...this.options.serverPlans].map(([plan, price]) => ({ plan, price_eur_cents: price }));
  }

  async listServers(customerId: string): Promise<ServerView[]> {
    requireIdentifier(customerId, 'customer_id');
    const view = await this.store.loadView(customerId);
    const now = this.clock.now();
    return view.servers.filter((state) => isServerLive(state, now, view.cancel_at_period_end)).map(serverView);
  }

  /** Buys a private server from the balance; it renews monthly on its own date until stopped. */
  /**
   * A keyed purchase seen again: an active server is the answer; one still pending has its debit retried with
   * the SAME wallet entry id (from its stored anchor), so the money is taken at most once.
   */
  private async finishExistingPurchase(customerId: string, existing: ServerDocument): Promise<ServerView> {
    if (existing.status === 'pending') {
      try {
        await this.wallet.debit({
          customer_id: customerId,
          entry_id: serverEntryId(existing._id, existing.anchor_at),
          amount_eur_cents: existing.price_eur_cents,
          reason: 'server',
          reference: existing._id,
        });
      } catch (error) {
        if (error instanceof AppError && error.code === 'insufficient_balance') {
          const now = this.clock.now();
          await this.store.collections
            .servers(customerId)
            .updateOne(
              { _id: existing._id },
              { $set: { status: 'released', release_reason: 'payment_failed', released_at: now, next_action_at: null, updated_at: now } },
            );
          throw new AppError(
            'insufficient_balance',
            `the balance cannot pay for plan ${existing.plan}; top up and retry with a new Idempotency-Key`,
            { details: { required_eur_cents: existing.price_eur_cents } },
          );
        }
        throw error instanceof AppError ? error : new AppError('unavailable', 'the wallet did not answer; retry', { cause: error });
      }
      await this.store.collections
        .servers(customerId)
        .updateOne(
          { _id: existing._id },
          { $set: { status: 'active', next_action_at: existing.paid_until, updated_at: this.clock.now() } },
        );
      await this.store.bumpRevision(customerId, { serverCount: existing.ordinal + 1 });
      return serverView({ server: { ...existing, status: 'active' }, cancel_at_period_end: false });
    }
    if (existing.status === 'released')
      throw new AppError('conflict', 'this purchase was refused or ended; buy again with a new Idempotency-Key');
    return serverView({ server: existing, cancel_at_period_end: false });
  }

  async createServer(customerId: string, plan: string, label: string, requestedServerId?: string): Promise<ServerView> {
    requireIdentifier(customerId, 'customer_id');
    const price = this.options.serverPlans.get(plan);
    if (price === undefined) {
      throw new AppError('invalid_request', `unknown plan \`${String(plan)}\`; plans: ${[...this.options.serverPlans.keys()].join(', ')}`, {
        param: 'plan',
      });
    }
    if (typeof label !== 'string' || label.trim().length === 0 || label.length > 64)
      throw new AppError('invalid_request', 'label must be 1-64 characters', { param: 'label' });
    if (requestedServerId !== undefined && !/^srv_[A-Za-z0-9]{8,40}$/.test(requestedServerId))
      throw new AppError('invalid_request', 'server_id must look like srv_<letters and digits>', { param: 'server_id' });
    return this.queue.run(customerId, async () => {
      const now = this.clock.now();
      const serverId = requestedServerId ?? newId('srv');
      if (requestedServerId) {
        const existing = await this.store.collections.servers(customerId).findOne({ _id: serverId });
        if (existing) return this.finishExistingPurchase(customerId, existing);
      }
      const server: ServerDocument = {
        _id: serverId,
        customer_id: customerId,
        ordinal: -1,
        plan,
        label: label.trim(),
        price_eur_cents: price,
        status: 'pending',
        anchor_at: now,
        cycle: 1,
        paid_until: addMonthsClamped(now, 1),
        grace_ends_at: null,
        next_action_at: new Date(now.getTime() + this.options.pendingPurchaseRecoveryMs),
        release_reason: null,
        released_at: null,
        created_at: now,
        updated_at: now,
      };
      try {
        await this.store.collections.servers(customerId).insertOne(server);
      } catch (error) {
        // Another replica is buying the same keyed server right now: answer with that purchase.
        const existing = isDuplicateKeyError(error) ? await this.store.collections.servers(customerId).findOne({ _id: serverId }) : null;
        if (existing) return this.finishExistingPurchase(customerId, existing);
        throw error;
      }
      server.ordinal = await this.store.allocatePointer(customerId, 'server', serverId, now);
      await this.store.collections.servers(customerId).updateOne({ _id: serverId }, { $set: { ordinal: server.ordinal } });
      try {
        await this.wallet.debit({
          customer_id: customerId,
          entry_id: serverEntryId(serverId, now),
          amount_eur_cents: price,
          reason: 'server',
          reference: serverId,
        });
      } catch (error) {
        if (error instanceof AppError && error.code === 'insufficient_balance') {
          await this.store.collections
            .servers(customerId)
            .updateOne(
              { _id: serverId },
              { $set: { status: 'released', release_reason: 'payment_failed', released_at: now, next_action_at: null, updated_at: now } },
            );
          await this.store.bumpRevision(customerId, { serverCount: server.ordinal + 1 });
          throw new AppError(
            'insufficient_balance',
            `the balance cannot pay for plan ${plan} (EUR ${(price / 100).toFixed(2)} a month); top up and retry`,
            { details: { required_eur_cents: price } },
          );
        }
        this.logger.warn(
          { server_id: serverId, err: { message: (error as Error)?.message } },
          'server purchase outcome unknown; left pending for recovery',
        );
        throw error instanceof AppError ? error : new AppError('unavailable', 'the wallet did not answer; retry', { cause: error });
      }
      await this.store.collections
        .servers(customerId)
        .updateOne({ _id: serverId }, { $set: { status: 'active', next_action_at: server.paid_until, updated_at: now } });
      await this.store.bumpRevision(customerId, { serverCount: server.ordinal + 1 });
      this.logger.info({ customer_id: customerId, server_id: serverId, plan }, 'server bought from the balance');
      return serverView({ server: { ...server, status: 'active' }, cancel_at_period_end: false });
    });
  }

  /** Stops a server's renewal: it stays until its paid date, then ends. Repeating it is harmless. */
  async cancelServer(customerId: string, serverId: string): Promise<ServerView> {
    requireIdentifier(customerId, 'customer_id');
    if (typeof serverId !== 'string' || !identifierPattern.test(serverId))
      throw new AppError('not_found', 'no such server', { param: 'id' });
    return this.queue.run(customerId, async () => {
      const state = await this.store.readServer(customerId, serverId);
      const now = this.clock.now();
      if (!state || state.server.customer_id !== customerId) throw new AppError('not_found', 'no such server', { param: 'id' });
      const settings = await this.store.readSettings(customerId);
      if (!isServerLive(state, now, settings?.cancel_at_period_end ?? false))
        throw new AppError('not_found', 'no such server', { param: 'id' });
      await insertIfAbsent(this.store.collections.serverCancellations, { _id: serverId, customer_id: customerId, created_at: now });
      await this.store.bumpRevision(customerId);
      this.logger.info({ customer_id: customerId, server_id: serverId }, 'server renewal stopped');
      return serverView({ server: state.server, cancel_at_period_end: true });
    });
  }
}
