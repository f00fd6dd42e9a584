// Original file: proto/billing/v1/billing.proto


export interface RunSchedulerTickRequest {
  'respect_lease'?: (boolean);
}

export interface RunSchedulerTickRequest__Output {
  'respect_lease': (boolean);
}
