// Original file: proto/execution/v1/execution.proto


export interface ModifySummary {
  'accounts'?: (number);
  'matched'?: (number);
  'modified'?: (number);
  'failed'?: (number);
  'unknown'?: (number);
  'accounts_unknown'?: (number);
}

export interface ModifySummary__Output {
  'accounts': (number);
  'matched': (number);
  'modified': (number);
  'failed': (number);
  'unknown': (number);
  'accounts_unknown': (number);
}
