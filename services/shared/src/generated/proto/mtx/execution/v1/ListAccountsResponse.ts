// Original file: proto/execution/v1/execution.proto

import type { Account as _mtx_execution_v1_Account, Account__Output as _mtx_execution_v1_Account__Output } from '../../../mtx/execution/v1/Account';

export interface ListAccountsResponse {
  'accounts'?: (_mtx_execution_v1_Account)[];
}

export interface ListAccountsResponse__Output {
  'accounts': (_mtx_execution_v1_Account__Output)[];
}
