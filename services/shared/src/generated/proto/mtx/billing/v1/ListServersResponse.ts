// Original file: proto/billing/v1/billing.proto

import type { Server as _mtx_billing_v1_Server, Server__Output as _mtx_billing_v1_Server__Output } from '../../../mtx/billing/v1/Server';

export interface ListServersResponse {
  'servers'?: (_mtx_billing_v1_Server)[];
}

export interface ListServersResponse__Output {
  'servers': (_mtx_billing_v1_Server__Output)[];
}
