// Original file: proto/execution/v1/execution.proto


export interface CloseSummary {
  'accounts'?: (number);
  'matched'?: (number);
  'closed'?: (number);
  'failed'?: (number);
  'unknown'?: (number);
  'accounts_unknown'?: (number);
  'accounts_unavailable'?: (number);
  'accounts_failed'?: (number);
}

export interface CloseSummary__Output {
  'accounts': (number);
  'matched': (number);
  'closed': (number);
  'failed': (number);
  'unknown': (number);
  'accounts_unknown': (number);
  'accounts_unavailable': (number);
  'accounts_failed': (number);
}
