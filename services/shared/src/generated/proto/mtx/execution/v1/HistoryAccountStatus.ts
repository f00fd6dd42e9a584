// Original file: proto/execution/v1/execution.proto


export interface HistoryAccountStatus {
  'account_id'?: (string);
  'status'?: (string);
  'message'?: (string);
}

export interface HistoryAccountStatus__Output {
  'account_id': (string);
  'status': (string);
  'message': (string);
}
