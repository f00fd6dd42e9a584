// Original file: proto/connector/v1/inspect.proto


export interface AccountFigures {
  'currency'?: (string);
  'balance'?: (number | string);
  'equity'?: (number | string);
  'free_margin'?: (number | string);
  'margin_mode'?: (string);
}

export interface AccountFigures__Output {
  'currency': (string);
  'balance': (number);
  'equity': (number);
  'free_margin': (number);
  'margin_mode': (string);
}
