// Original file: proto/connector/v1/connector.proto

import type { Credentials as _mtx_connector_v1_Credentials, Credentials__Output as _mtx_connector_v1_Credentials__Output } from '../../../mtx/connector/v1/Credentials';
import type { OrderLeg as _mtx_connector_v1_OrderLeg, OrderLeg__Output as _mtx_connector_v1_OrderLeg__Output } from '../../../mtx/connector/v1/OrderLeg';
import type { Long } from '@grpc/proto-loader';

export interface PlaceRequest {
  'account_id'?: (string);
  'credentials'?: (_mtx_connector_v1_Credentials | null);
  'legs'?: (_mtx_connector_v1_OrderLeg)[];
  'deadline_unix_ms'?: (number | string | Long);
  'batch_id'?: (string);
}

export interface PlaceRequest__Output {
  'account_id': (string);
  'credentials': (_mtx_connector_v1_Credentials__Output | null);
  'legs': (_mtx_connector_v1_OrderLeg__Output)[];
  'deadline_unix_ms': (number);
  'batch_id': (string);
}
