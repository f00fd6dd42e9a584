// Original file: proto/billing/v1/billing.proto

import type { Long } from '@grpc/proto-loader';

export interface SchedulerTickReport {
  'lease'?: (string);
  'batches'?: (number);
  'processed'?: (number);
  'charged'?: (number);
  'renewed_free'?: (number);
  'released'?: (number);
  'past_due'?: (number);
  'suspended'?: (number);
  'recovered'?: (number);
  'deferred'?: (number);
  'duration_ms'?: (number | string | Long);
  'already_charged'?: (number);
  'unchanged'?: (number);
}

export interface SchedulerTickReport__Output {
  'lease': (string);
  'batches': (number);
  'processed': (number);
  'charged': (number);
  'renewed_free': (number);
  'released': (number);
  'past_due': (number);
  'suspended': (number);
  'recovered': (number);
  'deferred': (number);
  'duration_ms': (number);
  'already_charged': (number);
  'unchanged': (number);
}
