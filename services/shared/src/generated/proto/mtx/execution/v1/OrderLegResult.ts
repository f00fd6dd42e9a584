// Original file: proto/execution/v1/execution.proto

import type { LegSizing as _mtx_execution_v1_LegSizing, LegSizing__Output as _mtx_execution_v1_LegSizing__Output } from '../../../mtx/execution/v1/LegSizing';
import type { Long } from '@grpc/proto-loader';

export interface OrderLegResult {
  'account_id'?: (string);
  'platform'?: (string);
  'symbol'?: (string);
  'operation'?: (string);
  'volume'?: (number | string);
  'status'?: (string);
  'order'?: (number | string | Long);
  'deal'?: (number | string | Long);
  'price'?: (number | string);
  'bid'?: (number | string);
  'ask'?: (number | string);
  'retcode'?: (number);
  'retcode_description'?: (string);
  'message'?: (string);
  'latency_ms'?: (number | string | Long);
  'sizing'?: (_mtx_execution_v1_LegSizing | null);
  '_price'?: "price";
  '_bid'?: "bid";
  '_ask'?: "ask";
  '_retcode'?: "retcode";
  '_retcode_description'?: "retcode_description";
  '_sizing'?: "sizing";
}

export interface OrderLegResult__Output {
  'account_id': (string);
  'platform': (string);
  'symbol': (string);
  'operation': (string);
  'volume': (number);
  'status': (string);
  'order': (number);
  'deal': (number);
  'price'?: (number);
  'bid'?: (number);
  'ask'?: (number);
  'retcode'?: (number);
  'retcode_description'?: (string);
  'message': (string);
  'latency_ms': (number);
  'sizing'?: (_mtx_execution_v1_LegSizing__Output | null);
  '_price'?: "price";
  '_bid'?: "bid";
  '_ask'?: "ask";
  '_retcode'?: "retcode";
  '_retcode_description'?: "retcode_description";
  '_sizing'?: "sizing";
}
