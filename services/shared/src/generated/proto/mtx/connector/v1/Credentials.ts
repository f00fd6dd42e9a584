// Original file: proto/connector/v1/connector.proto


export interface Credentials {
  'server'?: (string);
  'login'?: (string);
  'password'?: (string);
}

export interface Credentials__Output {
  'server': (string);
  'login': (string);
  'password': (string);
}
