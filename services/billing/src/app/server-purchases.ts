import type { Clock } from '@mtx/shared/clock';
import { AppError } from '@mtx/shared/errors';
import type { Logger } from '@mtx/shared/logger';
import { insertIfAbsent, isDuplicateKeyError } from '@mtx/shared/mongo';
import type { BillingStore } from '../store/billing-store';
import { addMonthsClamped } from '../domain/calendar';
import type { KeyedSerialQueue } from '../domain/keyed-queue';
import type { ServerDocument, ServerState } from '../domain/model';
import type { WalletPort } from '../domain/ports';
import { isServerLive } from '../domain/projection';
import { serverEntryId } from '../domain/renewals';

import { identifierPattern, newId, requireIdentifier } from '../domain/identifiers';
import type { BillingOptions } from './billing-options';

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

/** Private servers: bought from the balance, each renewing on its own date until cancelled. */
export class ServerPurchases {
  constructor(
    private readonly store: BillingStore,
    private readonly wallet: WalletPort,
    private readonly queue: KeyedSerialQueue,
    private readonly clock: Clock,
    private readonly options: BillingOptions,
    private readonly logger: Logger,
  ) {}

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
      existing.ordinal = await this.store.ensurePointer(customerId, 'server', existing, this.clock.now());
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
          await this.store.collections.servers.updateOne(
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
      await this.store.collections.servers.updateOne(
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
        const existing = await this.store.collections.servers.findOne({ _id: serverId });
        if (existing) return this.finishExistingPurchase(customerId, existing);
      }
      // The pointer first, then the document: a server that exists is always listed (a pointer to a server
      // never inserted is skipped by every read). A retry that races another replica may leave two pointers to
      // one keyed server; reads list each item once.
      const ordinal = await this.store.allocatePointer(customerId, 'server', serverId, now);
      const server: ServerDocument = {
        _id: serverId,
        customer_id: customerId,
        ordinal,
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
        await this.store.collections.servers.insertOne(server);
      } catch (error) {
        // Another replica is buying the same keyed server right now: answer with that purchase.
        const existing = isDuplicateKeyError(error) ? await this.store.collections.servers.findOne({ _id: serverId }) : null;
        if (existing) return this.finishExistingPurchase(customerId, existing);
        throw error;
      }
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
          await this.store.collections.servers.updateOne(
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
      await this.store.collections.servers.updateOne(
        { _id: serverId },
        { $set: { status: 'active', next_action_at: server.paid_until, updated_at: now } },
      );
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
      const state = await this.store.readServer(serverId);
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
