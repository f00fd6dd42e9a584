// Original file: proto/execution/v1/execution.proto


export interface Account {
  'id'?: (string);
  'platform'?: (string);
  'server'?: (string);
  'login'?: (string);
  'label'?: (string);
  'status'?: (string);
  'created_at'?: (string);
  'symbol_suffix'?: (string);
  'margin_mode'?: (string);
  'bonus_seat'?: (boolean);
  'customer_id'?: (string);
}

export interface Account__Output {
  'id': (string);
  'platform': (string);
  'server': (string);
  'login': (string);
  'label': (string);
  'status': (string);
  'created_at': (string);
  'symbol_suffix': (string);
  'margin_mode': (string);
  'bonus_seat': (boolean);
  'customer_id': (string);
}
