import type { Collection, Filter } from 'mongodb';
import type { Clock } from '@mtx/shared/clock';
import type { Logger } from '@mtx/shared/logger';
import { insertIfAbsent } from '@mtx/shared/mongo';
import { createCounter, createGauge, createHistogram, instruments } from '@mtx/shared/instruments';
import type { BillingStore, PassReads } from '../store/billing-store';
import type { KeyedSerialQueue } from '../domain/keyed-queue';
import type { SeatDocument } from '../domain/model';
import type { RenewalEngine } from './renewal-engine';
import { SeatRenewalWrites, type Precharge, type RenewalOutcome } from '../domain/renewals';
import { PeriodicJob } from '@mtx/shared/periodic-job';

/** Per kind: whether this tick's scan found everything due (see `dueIn`). */
interface Drained {
  seats: boolean;
  servers: boolean;
}

export interface SchedulerOptions {
  instanceId: string;
  leaseMs: number;
  batchSize: number;
  concurrency: number;
}

export interface SchedulerReport {
  /** `acquired`: this replica held the slot's lease; `held_elsewhere`: another did, nothing was done. */
  lease: 'acquired' | 'held_elsewhere' | 'ignored';
  batches: number;
  processed: number;
  outcomes: Record<RenewalOutcome, number>;
  duration_ms: number;
}

const emptyOutcomes = (): Record<RenewalOutcome, number> => ({
  charged: 0,
  already_charged: 0,
  renewed_free: 0,
  released: 0,
  past_due: 0,
  suspended: 0,
  recovered: 0,
  deferred: 0,
  unchanged: 0,
});

/**
 * Finds what is due and runs it through the renewal engine, in bounded batches. One replica works per lease
 * slot (an exclusive insert of `scheduler:<slot>`, since FerretDB has no compare-and-set) and stops before its
 * slot ends; a charge is still never taken twice if two replicas overlap, because every debit is idempotent.
 */
/** How late the scheduler picks up what is due: the figure to alert on when renewals fall behind. */
const schedulerLag = createHistogram(instruments.billingSchedulerLag);
/** When this replica last finished a tick holding the lease: stale on every replica, the lease is stalled. */
const leaseCompleted = createGauge(instruments.billingSchedulerLeaseCompleted);
const renewals = createCounter(instruments.billingRenewals);

export class Scheduler {
  private job: PeriodicJob | undefined;
  private stopped = false;
  private ticks = 0;

  constructor(
    private readonly store: BillingStore,
    private readonly renewals: RenewalEngine,
    private readonly queue: KeyedSerialQueue,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: SchedulerOptions,
    /**
     * Told of each customer whose balance the tick charged (for wallet.low_balance), with the balance after the
     * charges when the wallet's answer gave it and what the pass read of the customer; not awaited.
     */
    private readonly afterCharges?: (customerId: string, balanceEurCents: number | undefined, reads: PassReads) => void,
  ) {}

  private async acquireLease(slot: number, now: Date): Promise<boolean> {
    const id = `scheduler:${slot}`;
    if (await insertIfAbsent(this.store.collections.leases, { _id: id, holder: this.options.instanceId, slot, acquired_at: now }))
      return true;
    const lease = await this.store.collections.leases.findOne({ _id: id });
    return lease?.holder === this.options.instanceId;
  }

  /**
   * Up to `batchSize` due items of one kind (in one command: the batch is the limit). A scan that returned less
   * than that had nothing more due at that instant; the kind is then marked drained and not scanned again in
   * this tick (whatever falls due meanwhile waits for the next tick), which spares a round of scans after the
   * last batch.
   */
  private async dueIn<T extends { _id: string; customer_id: string; next_action_at: Date | null }>(
    collection: Collection<T>,
    kind: keyof Drained,
    drained: Drained,
    now: Date,
  ): Promise<T[]> {
    if (drained[kind]) return [];
    const { batchSize } = this.options;
    const found = (await collection
      .find({ next_action_at: { $lte: now } } as Filter<T>)
      .limit(batchSize)
      .batchSize(batchSize)
      .toArray()) as T[];
    if (found.length < batchSize) drained[kind] = true;
    return found;
  }

  /**
   * One batch: the due seats and servers, grouped by customer and worked through by `concurrency` workers, each
   * customer inside its queue. Returns how many items it took on.
   */
  private async runBatch(now: Date, seen: Set<string>, drained: Drained, report: SchedulerReport): Promise<number> {
    const [seats, servers] = await Promise.all([
      this.dueIn(this.store.collections.seats, 'seats', drained, now),
      this.dueIn(this.store.collections.servers, 'servers', drained, now),
    ]);
    const byCustomer = new Map<string, { seats: SeatDocument[]; servers: string[] }>();
    let taken = 0;
    const entryOf = (customerId: string) => {
      let entry = byCustomer.get(customerId);
      if (!entry) {
        entry = { seats: [], servers: [] };
        byCustomer.set(customerId, entry);
      }
      return entry;
    };
    for (const [kind, documents] of [
      ['seat', seats],
      ['server', servers],
    ] as const) {
      for (const document of documents) {
        if (seen.has(document._id)) continue;
        seen.add(document._id);
        if (document.next_action_at)
          schedulerLag.record(Math.max(0, now.getTime() - document.next_action_at.getTime()), { 'mtx.kind': kind });
        if (kind === 'seat') entryOf(document.customer_id).seats.push(document as SeatDocument);
        else entryOf(document.customer_id).servers.push(document._id);
        taken += 1;
      }
    }
    const ready = [...byCustomer];
    const work = async () => {
      for (let next = ready.shift(); next; next = ready.shift()) {
        const [customerId, items] = next;
        try {
          const results = await this.queue.run(customerId, () => this.processCustomer(customerId, items));
          for (const outcome of results) report.outcomes[outcome] += 1;
          report.processed += results.length;
        } catch (error) {
          report.outcomes.deferred += items.seats.length + items.servers.length;
          this.logger.error({ customer_id: customerId, err: error }, 'scheduler could not process a customer; left for the next tick');
        }
      }
    };
    await Promise.all(Array.from({ length: this.options.concurrency }, work));
    return taken;
  }

  /**
   * Brings one customer's due items up to date, inside the customer's queue. Seat renewals that need nothing
   * more are written together after the debits (a few per command, through the store's write gate) instead of
   * one command each; a seat whose write fails is reported `deferred` and, still due with its old dates, is
   * charged again next time through the same entry id, which the wallet answers as a replay.
   */
  private async processCustomer(customerId: string, items: { seats: SeatDocument[]; servers: string[] }): Promise<RenewalOutcome[]> {
    const [settings, { verified, occupancies }] = await Promise.all([
      this.store.readSettings(customerId),
      this.store.joinOccupancy(customerId, items.seats).then(async ({ joined, occupancies }) => ({
        verified: await this.store.withoutPendingClaims(items.seats.flatMap((seat) => joined.get(seat._id) ?? [])),
        occupancies,
      })),
    ]);
    const seatIds = items.seats.map((seat) => seat._id);
    const cancel = settings?.cancel_at_period_end ?? false;
    const prefetched = new Map(verified.map((state) => [state.seat._id, state]));
    const done: RenewalOutcome[] = [];
    const grouped = new SeatRenewalWrites();
    let balanceAfter: number | undefined;
    let failure: unknown = null;
    try {
      // Every seat the engine is about to charge, debited in one wallet call (in the seats' order, as the loop
      // below would); each seat then takes its own entry's result instead of a call of its own.
      const orderedStates = seatIds.flatMap((seatId) => prefetched.get(seatId) ?? []);
      const precharged = await this.renewals.prechargeSeats(customerId, orderedStates, cancel);
      balanceAfter = balanceAfterDebits(precharged);
      for (const seatId of seatIds) {
        const state = prefetched.get(seatId);
        done.push(
          await this.renewals.processSeat(seatId, cancel, {
            deferredWrites: grouped,
            precharged,
            ...(state ? { prefetched: state } : {}),
          }),
        );
      }
    } catch (error) {
      failure = error;
    }
    // Written even after a failure half-way, so the renewals already charged are not left for a replay.
    await this.writeGroupedRenewals(customerId, seatIds, grouped, done);
    try {
      if (failure === null) for (const serverId of items.servers) done.push(await this.renewals.processServer(serverId, cancel));
    } catch (error) {
      failure = error;
    }
    // A failure may come after changes, so readers are told in that case too.
    if (failure !== null || done.some((outcome) => outcome !== 'unchanged')) await this.store.bumpRevisionScheduled(customerId);
    if (done.some((outcome) => outcome === 'charged' || outcome === 'past_due' || outcome === 'suspended'))
      // A server renewal debits on its own, after the seats' debits, so their answer is not the balance then.
      this.afterCharges?.(customerId, items.servers.length === 0 ? balanceAfter : undefined, {
        occupancies,
        cancelAtPeriodEnd: cancel,
      });
    if (failure !== null) throw failure;
    return done;
  }

  /** Writes the held-back renewals; a seat whose write is not known to have landed is reported `deferred`. */
  private async writeGroupedRenewals(
    customerId: string,
    seatIds: string[],
    grouped: SeatRenewalWrites,
    done: RenewalOutcome[],
  ): Promise<void> {
    if (grouped.writes.length === 0) return;
    const applied = await this.store.writeSeatRenewals(grouped.writes);
    const failed = grouped.writes.filter((_, index) => !applied[index]).map((write) => write.seatId);
    if (failed.length === 0) return;
    const position = new Map(seatIds.map((seatId, index) => [seatId, index]));
    for (const seatId of failed) {
      const index = position.get(seatId);
      if (index !== undefined && index < done.length) done[index] = 'deferred';
    }
    this.logger.warn(
      { customer_id: customerId, seat_ids: failed },
      'seat renewals charged but not written; the next tick replays their debits and writes them',
    );
  }

  async tick(options: { respectLease?: boolean } = {}): Promise<SchedulerReport> {
    const startedMs = performance.now();
    const outcomes = emptyOutcomes();
    const report: SchedulerReport = { lease: 'ignored', batches: 0, processed: 0, outcomes, duration_ms: 0 };
    const now = this.clock.now();
    const slot = Math.floor(now.getTime() / this.options.leaseMs);
    if (options.respectLease !== false) {
      if (!(await this.acquireLease(slot, now))) {
        report.lease = 'held_elsewhere';
        report.duration_ms = Math.round(performance.now() - startedMs);
        return report;
      }
      report.lease = 'acquired';
    }
    // Work stops well before the slot ends, so the next slot's holder never overlaps with this one.
    const budgetMs = this.options.leaseMs * 0.8;
    const seen = new Set<string>();
    const drained: Drained = { seats: false, servers: false };
    while (!this.stopped && performance.now() - startedMs < budgetMs) {
      if ((await this.runBatch(this.clock.now(), seen, drained, report)) === 0) break;
      report.batches += 1;
    }
    this.ticks += 1;
    if (report.lease === 'acquired' && this.ticks % 100 === 1) {
      // Old lease documents only take space; no one reads them again.
      await this.store.collections.leases.deleteMany({ slot: { $lt: slot - 1_000 } }).catch(() => undefined);
    }
    report.duration_ms = Math.round(performance.now() - startedMs);
    if (report.lease !== 'held_elsewhere') leaseCompleted.record(Math.floor(Date.now() / 1000));
    for (const [outcome, count] of Object.entries(report.outcomes)) if (count > 0) renewals.add(count, { 'mtx.outcome': outcome });
    if (report.processed > 0) this.logger.info({ ...report }, 'scheduler tick');
    return report;
  }

  /** Runs a tick every `intervalMs` (never two at once on this replica) until stop(). */
  start(intervalMs: number): void {
    this.stopped = false;
    this.job = new PeriodicJob({
      name: 'billing scheduler',
      intervalMs,
      // A random first delay spreads replicas started together.
      firstDelayMs: Math.floor(Math.random() * Math.min(intervalMs, 5_000)),
      work: () => this.tick(),
      logger: this.logger,
    });
    this.job.start();
  }

  async stop(): Promise<void> {
    // Set first: a tick in progress stops taking batches, so the wait below is short.
    this.stopped = true;
    await this.job?.stop();
  }
}

/**
 * The balance the wallet reported after the last debit it applied of a DebitMany (it applies them in order), or
 * undefined when it applied none.
 */
function balanceAfterDebits(precharged: Map<string, Precharge>): number | undefined {
  let balance: number | undefined;
  for (const result of precharged.values())
    if (typeof result === 'object' && 'replay' in result && !result.replay) balance = result.balance_eur_cents;
  return balance;
}
