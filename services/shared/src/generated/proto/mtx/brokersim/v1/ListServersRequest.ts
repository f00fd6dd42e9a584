// Original file: proto/brokersim/v1/brokersim.proto


export interface ListServersRequest {
}

export interface ListServersRequest__Output {
}
