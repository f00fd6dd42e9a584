// Original file: proto/brokersim/v1/brokersim.proto

import type { RequestRecord as _mtx_brokersim_v1_RequestRecord, RequestRecord__Output as _mtx_brokersim_v1_RequestRecord__Output } from '../../../mtx/brokersim/v1/RequestRecord';

export interface LookupRequestsResponse {
  'records'?: (_mtx_brokersim_v1_RequestRecord)[];
}

export interface LookupRequestsResponse__Output {
  'records': (_mtx_brokersim_v1_RequestRecord__Output)[];
}
