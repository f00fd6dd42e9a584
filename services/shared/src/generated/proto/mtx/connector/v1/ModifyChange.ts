// Original file: proto/connector/v1/connector.proto

import type { Long } from '@grpc/proto-loader';

export interface ModifyChange {
  'stop_loss'?: (number | string);
  'take_profit'?: (number | string);
  'price'?: (number | string);
  'expiration_unix_ms'?: (number | string | Long);
  '_stop_loss'?: "stop_loss";
  '_take_profit'?: "take_profit";
  '_price'?: "price";
  '_expiration_unix_ms'?: "expiration_unix_ms";
}

export interface ModifyChange__Output {
  'stop_loss'?: (number);
  'take_profit'?: (number);
  'price'?: (number);
  'expiration_unix_ms'?: (number);
  '_stop_loss'?: "stop_loss";
  '_take_profit'?: "take_profit";
  '_price'?: "price";
  '_expiration_unix_ms'?: "expiration_unix_ms";
}
