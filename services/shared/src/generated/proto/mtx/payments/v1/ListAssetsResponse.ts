// Original file: proto/payments/v1/payments.proto

import type { AssetRow as _mtx_payments_v1_AssetRow, AssetRow__Output as _mtx_payments_v1_AssetRow__Output } from '../../../mtx/payments/v1/AssetRow';

export interface ListAssetsResponse {
  'assets'?: (_mtx_payments_v1_AssetRow)[];
}

export interface ListAssetsResponse__Output {
  'assets': (_mtx_payments_v1_AssetRow__Output)[];
}
