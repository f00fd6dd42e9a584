// Original file: proto/billing/v1/billing.proto

import type { SeatCounts as _mtx_billing_v1_SeatCounts, SeatCounts__Output as _mtx_billing_v1_SeatCounts__Output } from '../../../mtx/billing/v1/SeatCounts';
import type { Seat as _mtx_billing_v1_Seat, Seat__Output as _mtx_billing_v1_Seat__Output } from '../../../mtx/billing/v1/Seat';
import type { WalletSummary as _mtx_billing_v1_WalletSummary, WalletSummary__Output as _mtx_billing_v1_WalletSummary__Output } from '../../../mtx/billing/v1/WalletSummary';

export interface Subscription {
  'plan'?: (string);
  'status'?: (string);
  'paid_access'?: (boolean);
  'billing_provider'?: (string);
  'cancel_at_period_end'?: (boolean);
  'seats'?: (_mtx_billing_v1_SeatCounts | null);
  'seat_details'?: (_mtx_billing_v1_Seat)[];
  'current_period_end'?: (string);
  'grace_ends_at'?: (string);
  'wallet'?: (_mtx_billing_v1_WalletSummary | null);
  '_current_period_end'?: "current_period_end";
  '_grace_ends_at'?: "grace_ends_at";
  '_wallet'?: "wallet";
}

export interface Subscription__Output {
  'plan': (string);
  'status': (string);
  'paid_access': (boolean);
  'billing_provider': (string);
  'cancel_at_period_end': (boolean);
  'seats': (_mtx_billing_v1_SeatCounts__Output | null);
  'seat_details': (_mtx_billing_v1_Seat__Output)[];
  'current_period_end'?: (string);
  'grace_ends_at'?: (string);
  'wallet'?: (_mtx_billing_v1_WalletSummary__Output | null);
  '_current_period_end'?: "current_period_end";
  '_grace_ends_at'?: "grace_ends_at";
  '_wallet'?: "wallet";
}
