// Original file: proto/connector/v1/connector.proto

import type { OrderLeg as _mtx_connector_v1_OrderLeg, OrderLeg__Output as _mtx_connector_v1_OrderLeg__Output } from '../../../mtx/connector/v1/OrderLeg';
import type { Long } from '@grpc/proto-loader';

export interface PlaceRequest {
  'account_id'?: (string);
  'legs'?: (_mtx_connector_v1_OrderLeg)[];
  'deadline_unix_ms'?: (number | string | Long);
  'batch_id'?: (string);
}

export interface PlaceRequest__Output {
  'account_id': (string);
  'legs': (_mtx_connector_v1_OrderLeg__Output)[];
  'deadline_unix_ms': (number);
  'batch_id': (string);
}
