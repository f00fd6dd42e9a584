// Original file: proto/execution/v1/execution.proto


export interface ListServersRequest {
}

export interface ListServersRequest__Output {
}
