// Original file: proto/billing/v1/billing.proto

import type { Long } from '@grpc/proto-loader';

export interface WalletSummary {
  'balance_eur_cents'?: (number | string | Long);
  'next_charge_eur_cents'?: (number | string | Long);
  'next_charge_at'?: (string);
  'covers_next_charge'?: (boolean);
  '_next_charge_eur_cents'?: "next_charge_eur_cents";
  '_next_charge_at'?: "next_charge_at";
}

export interface WalletSummary__Output {
  'balance_eur_cents': (number);
  'next_charge_eur_cents'?: (number);
  'next_charge_at'?: (string);
  'covers_next_charge': (boolean);
  '_next_charge_eur_cents'?: "next_charge_eur_cents";
  '_next_charge_at'?: "next_charge_at";
}
