// Original file: proto/brokersim/v1/brokersim.proto


export interface SymbolInfo {
  'name'?: (string);
  'digits'?: (number);
  'point'?: (number | string);
  'volume_min'?: (number | string);
  'volume_max'?: (number | string);
  'volume_step'?: (number | string);
  'stops_level'?: (number);
  'contract_size'?: (number | string);
  'bid'?: (number | string);
  'ask'?: (number | string);
  'trade_allowed'?: (boolean);
}

export interface SymbolInfo__Output {
  'name': (string);
  'digits': (number);
  'point': (number);
  'volume_min': (number);
  'volume_max': (number);
  'volume_step': (number);
  'stops_level': (number);
  'contract_size': (number);
  'bid': (number);
  'ask': (number);
  'trade_allowed': (boolean);
}
