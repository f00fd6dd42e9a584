// Original file: proto/wallet/v1/wallet.proto


export interface AuditRequest {
}

export interface AuditRequest__Output {
}
