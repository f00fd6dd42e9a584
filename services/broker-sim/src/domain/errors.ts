/** A refusal of the simulated trade server, mapped to a gRPC or HTTP status by the handlers. */
export class BrokerError extends Error {
  constructor(
    readonly kind: 'not_found' | 'unauthenticated' | 'unavailable' | 'invalid' | 'conflict' | 'wrong_platform',
    message: string,
  ) {
    super(message);
    this.name = 'BrokerError';
  }
}
