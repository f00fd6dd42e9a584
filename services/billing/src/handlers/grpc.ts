import { unaryHandlers } from '@mtx/shared/grpc';
import type { Logger } from '@mtx/shared/logger';
import type { BillingService, ServerView, SubscriptionAnswer } from '../app/billing';
import type { SeatState } from '../domain/model';
import type { Upcoming } from '../domain/projection';
import type { Scheduler } from '../app/scheduler';

const iso = (date: Date | null | undefined): string | undefined => (date ? date.toISOString() : undefined);

export function seatMessage(state: SeatState) {
  return {
    id: state.seat._id,
    paid_until: state.seat.paid_until.toISOString(),
    // A seat handed out is paid for; `pending` is an internal step that a caller never waits on.
    status: state.seat.status === 'pending' ? 'active' : state.seat.status,
    account_id: state.occupancy.account_id ?? undefined,
    bonus: state.seat.bonus,
    grace_ends_at: iso(state.seat.grace_ends_at),
  };
}

export function subscriptionMessage(answer: SubscriptionAnswer) {
  return {
    plan: answer.plan,
    status: answer.status,
    paid_access: answer.paid_access,
    billing_provider: answer.billing_provider,
    cancel_at_period_end: answer.cancel_at_period_end,
    seats: answer.seats,
    seat_details: answer.seat_details.map((seat) => ({
      id: seat.id,
      paid_until: seat.paid_until.toISOString(),
      status: seat.status,
      account_id: seat.account_id ?? undefined,
      bonus: seat.bonus,
      grace_ends_at: iso(seat.grace_ends_at),
    })),
    current_period_end: iso(answer.current_period_end),
    grace_ends_at: iso(answer.grace_ends_at),
    wallet: answer.wallet
      ? {
          balance_eur_cents: answer.wallet.balance_eur_cents,
          next_charge_eur_cents: answer.wallet.next_charge_eur_cents ?? undefined,
          next_charge_at: iso(answer.wallet.next_charge_at),
          covers_next_charge: answer.wallet.covers_next_charge,
        }
      : undefined,
  };
}

export function upcomingMessage(upcoming: Upcoming) {
  return {
    items: upcoming.items.map((item) => ({
      when: item.when.toISOString(),
      amount_eur_cents: item.amount_eur_cents,
      kind: item.kind,
      label: item.label,
    })),
    total_eur_cents: upcoming.total_eur_cents,
  };
}

export function serverMessage(server: ServerView) {
  return {
    id: server.id,
    plan: server.plan,
    label: server.label,
    price_eur_cents: server.price_eur_cents,
    status: server.status,
    paid_until: server.paid_until.toISOString(),
    cancel_at_period_end: server.cancel_at_period_end,
    grace_ends_at: iso(server.grace_ends_at),
    created_at: server.created_at.toISOString(),
  };
}

/** gRPC adapter of mtx.billing.v1.BillingService: decoding and encoding only, the rules live in the domain. */
export function billingGrpcImplementation(service: BillingService, scheduler: Scheduler, logger: Logger) {
  return unaryHandlers(
    {
      GetSubscription: async (request: { customer_id: string }) => subscriptionMessage(await service.getSubscription(request.customer_id)),
      UpdateSubscription: async (request: { customer_id: string; cancel_at_period_end?: boolean }) =>
        subscriptionMessage(await service.updateSubscription(request.customer_id, request.cancel_at_period_end ?? undefined)),
      GetUpcoming: async (request: { customer_id: string }) => upcomingMessage(await service.getUpcoming(request.customer_id)),
      AssignSeat: async (request: { customer_id: string; account_id: string; label: string; bonus: boolean }) =>
        seatMessage(await service.assignSeat(request.customer_id, request.account_id, request.label, request.bonus)),
      ReleaseSeat: async (request: { customer_id: string; account_id: string }) =>
        seatMessage(await service.releaseSeat(request.customer_id, request.account_id)),
      ListServerPlans: async () => ({ plans: service.listServerPlans() }),
      ListServers: async (request: { customer_id: string }) => ({
        servers: (await service.listServers(request.customer_id)).map(serverMessage),
      }),
      CreateServer: async (request: { customer_id: string; plan: string; label: string; server_id?: string }) =>
        serverMessage(await service.createServer(request.customer_id, request.plan, request.label, request.server_id || undefined)),
      CancelServer: async (request: { customer_id: string; server_id: string }) =>
        serverMessage(await service.cancelServer(request.customer_id, request.server_id)),
      RunSchedulerTick: async (request: { respect_lease: boolean }) => {
        const report = await scheduler.tick({ respectLease: request.respect_lease });
        return {
          lease: report.lease,
          batches: report.batches,
          processed: report.processed,
          ...report.outcomes,
          duration_ms: report.duration_ms,
        };
      },
    },
    logger,
  );
}
