// Original file: proto/execution/v1/execution.proto


export interface ModifyChangeInput {
  'stop_loss'?: (number | string);
  'take_profit'?: (number | string);
  'price'?: (number | string);
  'expiration'?: (string);
  '_stop_loss'?: "stop_loss";
  '_take_profit'?: "take_profit";
  '_price'?: "price";
  '_expiration'?: "expiration";
}

export interface ModifyChangeInput__Output {
  'stop_loss'?: (number);
  'take_profit'?: (number);
  'price'?: (number);
  'expiration'?: (string);
  '_stop_loss'?: "stop_loss";
  '_take_profit'?: "take_profit";
  '_price'?: "price";
  '_expiration'?: "expiration";
}
