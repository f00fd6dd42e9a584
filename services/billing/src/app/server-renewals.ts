import type { Clock } from '@mtx/shared/clock';
import type { Logger } from '@mtx/shared/logger';
import type { BillingStore } from '../store/billing-store';
import { addHours } from '../domain/calendar';
import type { ServerDocument } from '../domain/model';
import type { WalletPort } from '../domain/ports';
import {
  advancePeriod,
  isInsufficientBalance,
  nextActionAt,
  serverEntryId,
  type RenewalOutcome,
  type RenewalPolicy,
} from '../domain/renewals';

/** Renewals of private servers: each renewed from the balance on its own date unless its renewal was stopped. */
export class ServerRenewals {
  constructor(
    private readonly store: BillingStore,
    private readonly wallet: WalletPort,
    private readonly clock: Clock,
    private readonly policy: RenewalPolicy,
    private readonly logger: Logger,
  ) {}

  /** Brings one server up to date: renewed from the balance on its own date unless its renewal was stopped. */
  async processServer(serverId: string, cancelAtPeriodEnd: boolean, options: { retryOverdue?: boolean } = {}): Promise<RenewalOutcome> {
    const state = await this.store.readServer(serverId);
    if (!state) return 'unchanged';
    const { server } = state;
    const now = this.clock.now();
    if (server.status === 'released') {
      if (server.next_action_at !== null)
        await this.store.collections.servers.updateOne({ _id: server._id }, { $set: { next_action_at: null } });
      return 'unchanged';
    }
    if (server.status === 'pending') return this.recoverPendingServer(server, now);
    if (server.paid_until.getTime() > now.getTime()) {
      if (server.next_action_at === null || server.next_action_at.getTime() <= now.getTime()) {
        await this.store.collections.servers.updateOne(
          { _id: server._id },
          { $set: { next_action_at: nextActionAt(server, now, this.policy), updated_at: now } },
        );
      }
      return 'unchanged';
    }
    if (state.cancel_at_period_end || cancelAtPeriodEnd) {
      await this.store.collections.servers.updateOne(
        { _id: server._id },
        {
          $set: {
            status: 'released',
            release_reason: 'canceled',
            released_at: now,
            grace_ends_at: null,
            next_action_at: null,
            updated_at: now,
          },
        },
      );
      return 'released';
    }
    if (!options.retryOverdue && server.status !== 'active' && server.next_action_at && server.next_action_at.getTime() > now.getTime())
      return 'unchanged';
    let replay: boolean;
    try {
      ({ replay } = await this.wallet.debit({
        customer_id: server.customer_id,
        entry_id: serverEntryId(server._id, server.paid_until),
        amount_eur_cents: server.price_eur_cents,
        reason: 'server',
        reference: server._id,
      }));
    } catch (error) {
      if (!isInsufficientBalance(error)) {
        this.logger.warn(
          { server_id: server._id, err: { message: (error as Error)?.message } },
          'server renewal deferred: the wallet did not answer',
        );
        await this.store.collections.servers.updateOne(
          { _id: server._id },
          { $set: { next_action_at: new Date(now.getTime() + this.policy.failureBackoffMs), updated_at: now } },
        );
        return 'deferred';
      }
      const graceEndsAt = server.grace_ends_at ?? addHours(server.paid_until, this.policy.gracePeriodHours);
      const status = now.getTime() >= graceEndsAt.getTime() ? ('suspended' as const) : ('past_due' as const);
      await this.store.collections.servers.updateOne(
        { _id: server._id },
        {
          $set: {
            status,
            grace_ends_at: graceEndsAt,
            next_action_at: nextActionAt({ ...server, status, grace_ends_at: graceEndsAt }, now, this.policy),
            updated_at: now,
          },
        },
      );
      return status;
    }
    const period = advancePeriod(server.anchor_at, server.cycle, now);
    await this.store.collections.servers.updateOne(
      { _id: server._id },
      { $set: { ...period, status: 'active', grace_ends_at: null, next_action_at: period.paid_until, updated_at: now } },
    );
    return replay ? 'already_charged' : 'charged';
  }

  private async recoverPendingServer(server: ServerDocument, now: Date): Promise<RenewalOutcome> {
    if (server.created_at.getTime() + this.policy.pendingPurchaseRecoveryMs > now.getTime()) return 'unchanged';
    let charged: boolean;
    try {
      charged = await this.wallet.entryApplied(server.customer_id, serverEntryId(server._id, server.anchor_at));
    } catch {
      await this.store.collections.servers.updateOne(
        { _id: server._id },
        { $set: { next_action_at: new Date(now.getTime() + this.policy.failureBackoffMs) } },
      );
      return 'deferred';
    }
    // Only a purchase still pending is decided here: a retry on another replica may have paid for it and
    // activated it since the lookup, and releasing it then would keep the money and drop the server.
    await this.store.collections.servers.updateOne(
      { _id: server._id, status: 'pending' },
      charged
        ? { $set: { status: 'active', next_action_at: server.paid_until, updated_at: now } }
        : { $set: { status: 'released', release_reason: 'abandoned', released_at: now, next_action_at: null, updated_at: now } },
    );
    return 'recovered';
  }
}
