import type { Collection, Filter } from 'mongodb';
import type { Clock } from '@mtx/shared/clock';
import type { Logger } from '@mtx/shared/logger';
import { insertIfAbsent } from '@mtx/shared/mongo';
import { meter } from '@mtx/shared/telemetry';
import type { BillingStore } from '../store/billing-store';
import type { KeyedSerialQueue } from './keyed-queue';
import type { RenewalEngine, RenewalOutcome } from './renewals';

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

const emptyOutcomes = (): Record<RenewalOutcome, number> => ({ charged: 0, already_charged: 0, renewed_free: 0, released: 0, past_due: 0, suspended: 0, recovered: 0, deferred: 0, unchanged: 0 });

/**
 * Finds what is due and runs it through the renewal engine, in bounded batches. One replica works per lease
 * slot (an exclusive insert of `scheduler:<slot>`, since FerretDB has no compare-and-set) and stops before its
 * slot ends; a charge is still never taken twice if two replicas overlap, because every debit is idempotent.
 */
/** How late the scheduler picks up what is due: the figure to alert on when renewals fall behind. */
const schedulerLag = meter('billing').createHistogram('mtx.billing.scheduler.lag', {
  unit: 'ms',
  description: 'Time between an item falling due (renewal, release, retry) and the scheduler picking it up',
  advice: { explicitBucketBoundaries: [100, 1_000, 5_000, 15_000, 30_000, 60_000, 120_000, 300_000, 900_000, 3_600_000] },
});

export class Scheduler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;
  private ticks = 0;

  constructor(
    private readonly store: BillingStore,
    private readonly renewals: RenewalEngine,
    private readonly queue: KeyedSerialQueue,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: SchedulerOptions,
  ) {}

  private async acquireLease(slot: number, now: Date): Promise<boolean> {
    const id = `scheduler:${slot}`;
    if (await insertIfAbsent(this.store.collections.leases, { _id: id, holder: this.options.instanceId, slot, acquired_at: now })) return true;
    const lease = await this.store.collections.leases.findOne({ _id: id });
    return lease?.holder === this.options.instanceId;
  }

  /** One batch of due items: up to `batchSize` from each shard, so one busy shard cannot starve the rest. */
  private async dueIn<T extends { _id: string; customer_id: string; next_action_at: Date | null }>(shards: Array<Collection<T>>, now: Date): Promise<T[]> {
    const perShard = this.options.batchSize;
    const filter = { next_action_at: { $lte: now } } as Filter<T>;
    const results = await Promise.all(shards.map((collection) => collection.find(filter).limit(perShard).toArray()));
    return results.flat() as T[];
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
    while (!this.stopped && performance.now() - startedMs < budgetMs) {
      const batchNow = this.clock.now();
      const [seats, servers] = await Promise.all([this.dueIn(this.store.collections.seatShards, batchNow), this.dueIn(this.store.collections.serverShards, batchNow)]);
      const prefetched = await this.store.joinOccupancy(seats.filter((seat) => !seen.has(seat._id)));
      const byCustomer = new Map<string, { seats: string[]; servers: string[] }>();
      for (const [kind, documents] of [['seats', seats], ['servers', servers]] as const) {
        for (const document of documents as Array<{ _id: string; customer_id: string; next_action_at: Date | null }>) {
          if (seen.has(document._id)) continue;
          seen.add(document._id);
          if (document.next_action_at) schedulerLag.record(Math.max(0, batchNow.getTime() - document.next_action_at.getTime()), { 'mtx.kind': kind === 'seats' ? 'seat' : 'server' });
          let entry = byCustomer.get(document.customer_id);
          if (!entry) byCustomer.set(document.customer_id, (entry = { seats: [], servers: [] }));
          entry[kind].push(document._id);
        }
      }
      if (byCustomer.size === 0) break;
      report.batches += 1;
      const customers = [...byCustomer.entries()];
      let next = 0;
      const worker = async () => {
        while (next < customers.length) {
          const [customerId, items] = customers[next++]!;
          try {
            const results = await this.queue.run(customerId, async () => {
              const settings = await this.store.readSettings(customerId);
              const cancel = settings?.cancel_at_period_end ?? false;
              const done: RenewalOutcome[] = [];
              for (const seatId of items.seats) {
                const state = prefetched.get(seatId);
                done.push(await this.renewals.processSeat(customerId, seatId, cancel, state ? { prefetched: state } : {}));
              }
              for (const serverId of items.servers) done.push(await this.renewals.processServer(customerId, serverId, cancel));
              if (done.some((outcome) => outcome !== 'unchanged')) await this.store.bumpRevision(customerId);
              return done;
            });
            for (const outcome of results) outcomes[outcome] += 1;
            report.processed += results.length;
          } catch (error) {
            outcomes.deferred += items.seats.length + items.servers.length;
            this.logger.error({ customer_id: customerId, err: error }, 'scheduler could not process a customer; left for the next tick');
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(this.options.concurrency, customers.length) }, worker));
    }
    this.ticks += 1;
    if (report.lease === 'acquired' && this.ticks % 100 === 1) {
      // Old lease documents only take space; no one reads them again.
      await this.store.collections.leases.deleteMany({ slot: { $lt: slot - 1_000 } }).catch(() => undefined);
    }
    report.duration_ms = Math.round(performance.now() - startedMs);
    if (report.processed > 0) this.logger.info({ ...report }, 'scheduler tick');
    return report;
  }

  /** Runs a tick every `intervalMs` (never two at once on this replica) until stop(). */
  start(intervalMs: number): void {
    this.stopped = false;
    const loop = () => {
      if (this.stopped) return;
      this.running = this.tick()
        .catch((error: unknown) => this.logger.error({ err: error }, 'scheduler tick failed'))
        .finally(() => {
          this.running = undefined;
          if (!this.stopped) {
            this.timer = setTimeout(loop, intervalMs);
            this.timer.unref();
          }
        });
    };
    // A random first delay spreads replicas started together.
    this.timer = setTimeout(loop, Math.floor(Math.random() * Math.min(intervalMs, 5_000)));
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}
