// Original file: proto/execution/v1/execution.proto


export interface CreateAccountRequest {
  'customer_id'?: (string);
  'platform'?: (string);
  'server'?: (string);
  'login'?: (string);
  'password'?: (string);
  'label'?: (string);
  'bonus_seat'?: (boolean);
}

export interface CreateAccountRequest__Output {
  'customer_id': (string);
  'platform': (string);
  'server': (string);
  'login': (string);
  'password': (string);
  'label': (string);
  'bonus_seat': (boolean);
}
