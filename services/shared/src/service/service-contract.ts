import { AppError } from './errors';

/**
 * Formats and limits the services agree on across their gRPC contract, stated once. A customer id becomes part
 * of `_id`s such as `<customer>:<sequence>`, so it may hold no colon (two wallets would collide).
 */
export const customerIdPattern = /^[A-Za-z0-9_-]{1,64}$/;

export function assertCustomerId(customerId: unknown): asserts customerId is string {
  if (typeof customerId !== 'string' || !customerIdPattern.test(customerId)) {
    throw new AppError('invalid_request', 'customer_id must be 1 to 64 letters, digits, `_` or `-`', { param: 'customer_id' });
  }
}

/** The most entries one wallet DebitMany takes (proto/wallet/v1/wallet.proto); billing sends at most this many. */
export const debitManyEntriesMax = 50;

/** The most entries one wallet FindEntries takes (proto/wallet/v1/wallet.proto); payments asks in chunks of this many. */
export const findEntriesMax = 500;
