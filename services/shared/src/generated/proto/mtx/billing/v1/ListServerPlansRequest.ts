// Original file: proto/billing/v1/billing.proto


export interface ListServerPlansRequest {
}

export interface ListServerPlansRequest__Output {
}
