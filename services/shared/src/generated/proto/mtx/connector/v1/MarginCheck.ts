// Original file: proto/connector/v1/inspect.proto


export interface MarginCheck {
  'symbol'?: (string);
  'operation'?: (string);
  'volume'?: (number | string);
  'price'?: (number | string);
  '_price'?: "price";
}

export interface MarginCheck__Output {
  'symbol': (string);
  'operation': (string);
  'volume': (number);
  'price'?: (number);
  '_price'?: "price";
}
