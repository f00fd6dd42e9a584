// Original file: proto/execution/v1/execution.proto


export interface TradeServer {
  'name'?: (string);
  'platform'?: (string);
  'broker'?: (string);
  'symbol_suffix'?: (string);
  'margin_mode'?: (string);
}

export interface TradeServer__Output {
  'name': (string);
  'platform': (string);
  'broker': (string);
  'symbol_suffix': (string);
  'margin_mode': (string);
}
