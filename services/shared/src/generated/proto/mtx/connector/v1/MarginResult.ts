// Original file: proto/connector/v1/inspect.proto


export interface MarginResult {
  'margin'?: (number | string);
  'margin_free'?: (number | string);
  'retcode'?: (number);
  'message'?: (string);
}

export interface MarginResult__Output {
  'margin': (number);
  'margin_free': (number);
  'retcode': (number);
  'message': (string);
}
