// Original file: proto/payments/v1/payments.proto

import type { Topup as _mtx_payments_v1_Topup, Topup__Output as _mtx_payments_v1_Topup__Output } from '../../../mtx/payments/v1/Topup';

export interface ListPendingTopupsResponse {
  'topups'?: (_mtx_payments_v1_Topup)[];
}

export interface ListPendingTopupsResponse__Output {
  'topups': (_mtx_payments_v1_Topup__Output)[];
}
