import { Type, type Static } from '@sinclair/typebox';
import type { Subscription__Output } from '@mtx/shared/generated/proto/mtx/billing/v1/Subscription';
import { narrowTo } from '../domain/closed-sets';

/** GET /v1/subscription's answer and its parts: the response schemas, the rendering of billing's message, and the type the gateway's read model keeps. */

/** A nullable field in OpenAPI 3.0 terms (`nullable: true`), which the response serializer also honours. */
const nullable = <T>(schema: Record<string, unknown>) => Type.Unsafe<T | null>({ ...schema, nullable: true });

const Timestamp = (description: string, example: string) => Type.String({ format: 'date-time', description, example });

export const SeatDetail = Type.Object(
  {
    id: Type.String({ description: 'Seat identifier.', example: 'seat_Yq3kN8e2LzA4vB7xHc1d' }),
    paid_until: Timestamp(
      'Paid-until date. Each seat renews from the balance one calendar month after it was bought, on the purchase day (clamped to the end of a shorter month), so seats do not share a date.',
      '2027-04-17T09:30:00.000Z',
    ),
    status: Type.Union([Type.Literal('active'), Type.Literal('past_due'), Type.Literal('suspended')], {
      description:
        '`active`: paid. `past_due`: the renewal could not be paid; retried on every top-up until `grace_ends_at`, trading continues. `suspended`: the grace passed unpaid; orders on its account are rejected until a top-up pays it.',
      example: 'active',
    }),
    account_id: nullable<string>({
      type: 'string',
      description: 'Connected account; null on a slot that is paid for but not in use (it is released unbilled at its date).',
      example: 'acc_mt5_7Hk2',
    }),
    bonus: Type.Boolean({ description: 'Operator-granted seat: never billed.', example: false }),
  },
  { additionalProperties: false },
);

export const WalletSummary = Type.Object(
  {
    balance_eur_cents: Type.Integer({ description: 'Current balance in EUR cents.', example: 3600 }),
    next_charge_eur_cents: nullable<number>({
      type: 'integer',
      description:
        'What the balance owes next: the sum of everything due at `next_charge_at` (past-due amounts are due now). Null when the balance owes nothing.',
      example: 1200,
    }),
    next_charge_at: nullable<string>({
      type: 'string',
      format: 'date-time',
      description: 'Date of the next charge; null when nothing is owed.',
      example: '2027-04-03T09:30:00.000Z',
    }),
    covers_next_charge: Type.Boolean({
      description: 'Whether the balance covers the next charge (true when nothing is owed).',
      example: true,
    }),
  },
  { additionalProperties: false, description: 'The balance and what it owes next. Null only where the wallet is switched off.' },
);

export const Subscription = Type.Object(
  {
    plan: Type.Union([Type.Literal('per_account'), Type.Literal('none')], {
      description: '`per_account` while the customer holds any seat, else `none`.',
      example: 'per_account',
    }),
    status: Type.Union([Type.Literal('active'), Type.Literal('past_due'), Type.Literal('inactive'), Type.Literal('canceled')], {
      description:
        '`active`: everything held is paid. `past_due`: a seat or server renewal is unpaid (in grace or suspended). `inactive`: nothing held. `canceled`: nothing held any more because the subscription was cancelled at period end.',
      example: 'active',
    }),
    paid_access: Type.Boolean({
      description: 'Whether any seat or server currently gives access (active, or past due within its grace).',
      example: true,
    }),
    billing_provider: Type.Union([Type.Literal('balance'), Type.Literal('card'), Type.Literal('none')], {
      description: 'Funding source. Seats and servers are paid from the prepaid balance (`balance`); `card` and `none` are reserved.',
      example: 'balance',
    }),
    cancel_at_period_end: Type.Boolean({
      description: 'When true, nothing renews: each seat and server ends at its own paid-until date. Set with PATCH /v1/subscription.',
      example: false,
    }),
    seats: Type.Object(
      {
        total: Type.Integer({ description: 'Seats held (paid and bonus).', example: 3 }),
        used: Type.Integer({ description: 'Seats with a connected account.', example: 2 }),
        bonus: Type.Integer({ description: 'Operator-granted seats among them, never billed.', example: 0 }),
      },
      { additionalProperties: false, description: 'Seat counts: paid for (total), in use, and bonus.' },
    ),
    seat_details: Type.Array(SeatDetail, { description: 'One entry per seat held, in purchase order.' }),
    current_period_end: nullable<string>({
      type: 'string',
      format: 'date-time',
      description: 'End of the current period: the earliest paid-until date among active seats and servers; null when none is active.',
      example: '2027-04-03T09:30:00.000Z',
    }),
    grace_ends_at: nullable<string>({
      type: 'string',
      format: 'date-time',
      description:
        'While past due: when the earliest grace ends (72 hours after the unpaid date) and the item is suspended. Null otherwise.',
      example: null,
    }),
    wallet: nullable<Static<typeof WalletSummary>>({
      ...WalletSummary,
      description:
        'The balance and what it owes next. Null only where the wallet is switched off; reported whether or not the plan is balance-funded.',
    }),
  },
  { additionalProperties: false },
);

export type SubscriptionBody = Static<typeof Subscription>;

/** gRPC leaves unset optional fields out; the public object spells them as null. */
export function renderSubscription(message: Subscription__Output): SubscriptionBody {
  return {
    plan: narrowTo(Subscription.properties.plan, message.plan, 'plan'),
    status: narrowTo(Subscription.properties.status, message.status, 'status'),
    paid_access: message.paid_access,
    billing_provider: narrowTo(Subscription.properties.billing_provider, message.billing_provider, 'billing_provider'),
    cancel_at_period_end: message.cancel_at_period_end,
    seats: { total: message.seats?.total ?? 0, used: message.seats?.used ?? 0, bonus: message.seats?.bonus ?? 0 },
    seat_details: (message.seat_details ?? []).map((seat) => ({
      id: seat.id,
      paid_until: seat.paid_until,
      status: narrowTo(SeatDetail.properties.status, seat.status, 'seat status'),
      account_id: seat.account_id ?? null,
      bonus: seat.bonus,
    })),
    current_period_end: message.current_period_end ?? null,
    grace_ends_at: message.grace_ends_at ?? null,
    wallet: message.wallet
      ? {
          balance_eur_cents: Number(message.wallet.balance_eur_cents),
          next_charge_eur_cents: message.wallet.next_charge_eur_cents === undefined ? null : Number(message.wallet.next_charge_eur_cents),
          next_charge_at: message.wallet.next_charge_at ?? null,
          covers_next_charge: message.wallet.covers_next_charge,
        }
      : null,
  };
}
