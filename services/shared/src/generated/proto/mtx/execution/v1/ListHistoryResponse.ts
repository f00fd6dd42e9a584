// Original file: proto/execution/v1/execution.proto

import type { HistoryDeal as _mtx_execution_v1_HistoryDeal, HistoryDeal__Output as _mtx_execution_v1_HistoryDeal__Output } from '../../../mtx/execution/v1/HistoryDeal';
import type { HistoryOrder as _mtx_execution_v1_HistoryOrder, HistoryOrder__Output as _mtx_execution_v1_HistoryOrder__Output } from '../../../mtx/execution/v1/HistoryOrder';
import type { HistoryAccountStatus as _mtx_execution_v1_HistoryAccountStatus, HistoryAccountStatus__Output as _mtx_execution_v1_HistoryAccountStatus__Output } from '../../../mtx/execution/v1/HistoryAccountStatus';

export interface ListHistoryResponse {
  'deals'?: (_mtx_execution_v1_HistoryDeal)[];
  'orders'?: (_mtx_execution_v1_HistoryOrder)[];
  'has_more'?: (boolean);
  'next_cursor'?: (string);
  'accounts'?: (_mtx_execution_v1_HistoryAccountStatus)[];
}

export interface ListHistoryResponse__Output {
  'deals': (_mtx_execution_v1_HistoryDeal__Output)[];
  'orders': (_mtx_execution_v1_HistoryOrder__Output)[];
  'has_more': (boolean);
  'next_cursor': (string);
  'accounts': (_mtx_execution_v1_HistoryAccountStatus__Output)[];
}
