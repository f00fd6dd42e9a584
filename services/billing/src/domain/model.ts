/**
 * What billing stores. A seat is two documents so that the two kinds of writer never rewrite each other's
 * fields (FerretDB applies updates as unisolated read-modify-write of the whole document):
 * - the billing document (dates, status, grace) is written only by renewals: the scheduler and the
 *   credit-triggered retry, which converge because a renewal's outcome is a pure function of the seat and
 *   the wallet's idempotent debit;
 * - the occupancy document (which account sits in it) is written only after winning an exclusive insert
 *   of the next generation's claim, so its changes are totally ordered.
 */

export type SeatStatus = 'pending' | 'active' | 'past_due' | 'suspended' | 'released';
export type ServerStatus = SeatStatus;
/** The statuses a customer sees; `pending` (purchase in flight) and `released` are never listed. */
export type LiveStatus = 'active' | 'past_due' | 'suspended';

export type ReleaseReason = 'vacant' | 'canceled' | 'payment_failed' | 'abandoned';

/** A status change that the execution service must hear about, kept until it has acknowledged it. */
export interface ExecutionNotice {
  account_id: string;
  status: AccountBillingStatus;
}

/** What execution is told about an account (its seat's status): legs of a `suspended` account are rejected. */
export type AccountBillingStatus = 'active' | 'past_due' | 'suspended';

interface BillableDocument {
  _id: string;
  customer_id: string;
  ordinal: number;
  status: SeatStatus;
  /** The purchase instant; every period end is counted from it (see calendar.ts). */
  anchor_at: Date;
  /** Number of months paid since the anchor; paid_until = anchor + cycle months. */
  cycle: number;
  paid_until: Date;
  grace_ends_at: Date | null;
  /** When the scheduler must next look at it; null once released. */
  next_action_at: Date | null;
  release_reason: ReleaseReason | null;
  released_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface SeatDocument extends BillableDocument {
  bonus: boolean;
  notice: ExecutionNotice | null;
}

export interface ServerDocument extends BillableDocument {
  plan: string;
  label: string;
  price_eur_cents: number;
}

export interface OccupancyDocument {
  _id: string;
  customer_id: string;
  generation: number;
  account_id: string | null;
  label: string | null;
  /** Set by the claim that released the slot for good (vacant at its date, or cancelled). */
  released: boolean;
  updated_at: Date;
}

export interface ClaimDocument {
  _id: string;
  seat_id: string;
  generation: number;
  account_id: string | null;
  label: string | null;
  released: boolean;
  created_at: Date;
}

export interface ServerCancellationDocument {
  _id: string;
  customer_id: string;
  created_at: Date;
}

export type PointerKind = 'seat' | 'server';

export interface PointerDocument {
  _id: string;
  customer_id: string;
  kind: PointerKind;
  ordinal: number;
  item_id: string;
  created_at: Date;
}

/**
 * Per-customer change marker. Every write to a customer's billing state is followed by setting `revision`
 * to a fresh random token; a reader that finds the token it cached can serve from memory. Lost updates of
 * this document only ever replace one fresh token by another, which is still a change.
 */
export interface CustomerDocument {
  _id: string;
  revision: string;
  seat_count_hint: number;
  server_count_hint: number;
  updated_at: Date;
}

export interface SettingsDocument {
  _id: string;
  cancel_at_period_end: boolean;
  updated_at: Date;
}

/** Account → seat, inserted exclusively so two concurrent connections of one account never buy two seats. */
export interface AccountDocument {
  _id: string;
  customer_id: string;
  account_id: string;
  seat_id: string | null;
  created_at: Date;
}

export interface LeaseDocument {
  _id: string;
  holder: string;
  slot: number;
  acquired_at: Date;
}

/** A seat as a reader sees it: both documents joined. */
export interface SeatState {
  seat: SeatDocument;
  occupancy: OccupancyDocument;
}

export interface ServerState {
  server: ServerDocument;
  cancel_at_period_end: boolean;
}

export interface CustomerView {
  customer_id: string;
  revision: string | null;
  cancel_at_period_end: boolean;
  /** Seats and servers not yet released (pending purchases excluded), in purchase order. */
  seats: SeatState[];
  servers: ServerState[];
  /** Whether anything of this customer was ever released by a cancellation (the status is then `canceled`). */
  ended_by_cancellation: boolean;
}

export const seatKey = (customerId: string, accountId: string) => `${customerId}:${accountId}`;
export const pointerKey = (customerId: string, kind: PointerKind, ordinal: number) => `${customerId}:${kind}:${ordinal}`;
export const claimKey = (seatId: string, generation: number) => `${seatId}:${generation}`;
