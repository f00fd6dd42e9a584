// Original file: proto/connector/v1/connector.proto

import type { HistoryDeal as _mtx_connector_v1_HistoryDeal, HistoryDeal__Output as _mtx_connector_v1_HistoryDeal__Output } from '../../../mtx/connector/v1/HistoryDeal';
import type { HistoryOrder as _mtx_connector_v1_HistoryOrder, HistoryOrder__Output as _mtx_connector_v1_HistoryOrder__Output } from '../../../mtx/connector/v1/HistoryOrder';
import type { Long } from '@grpc/proto-loader';

export interface HistoryReply {
  'account_id'?: (string);
  'status'?: (string);
  'message'?: (string);
  'deals'?: (_mtx_connector_v1_HistoryDeal)[];
  'orders'?: (_mtx_connector_v1_HistoryOrder)[];
  'more'?: (boolean);
  'complete_after_unix_ms'?: (number | string | Long);
  'latency_ms'?: (number | string | Long);
}

export interface HistoryReply__Output {
  'account_id': (string);
  'status': (string);
  'message': (string);
  'deals': (_mtx_connector_v1_HistoryDeal__Output)[];
  'orders': (_mtx_connector_v1_HistoryOrder__Output)[];
  'more': (boolean);
  'complete_after_unix_ms': (number);
  'latency_ms': (number);
}
