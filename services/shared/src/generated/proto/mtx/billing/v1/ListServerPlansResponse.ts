// Original file: proto/billing/v1/billing.proto

import type { ServerPlan as _mtx_billing_v1_ServerPlan, ServerPlan__Output as _mtx_billing_v1_ServerPlan__Output } from '../../../mtx/billing/v1/ServerPlan';

export interface ListServerPlansResponse {
  'plans'?: (_mtx_billing_v1_ServerPlan)[];
}

export interface ListServerPlansResponse__Output {
  'plans': (_mtx_billing_v1_ServerPlan__Output)[];
}
