// Original file: proto/connector/v1/inspect.proto


export interface SymbolSpecification {
  'name'?: (string);
  'tick_size'?: (number | string);
  'tick_value'?: (number | string);
  'volume_min'?: (number | string);
  'volume_max'?: (number | string);
  'volume_step'?: (number | string);
  'bid'?: (number | string);
  'ask'?: (number | string);
}

export interface SymbolSpecification__Output {
  'name': (string);
  'tick_size': (number);
  'tick_value': (number);
  'volume_min': (number);
  'volume_max': (number);
  'volume_step': (number);
  'bid': (number);
  'ask': (number);
}
