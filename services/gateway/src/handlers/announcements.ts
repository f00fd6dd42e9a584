import { announcements, following, type Following } from '@mtx/shared/announcements';
import type { FreshCache } from '@mtx/shared/fresh-cache';
import type { Authenticator } from '../app/authenticator';

/**
 * What the gateway hears: every backend announcement of a customer's change (a wallet movement, top-ups,
 * billing) invalidates the customer in every read model, and every key revocation reaches the key cache. The
 * shared follower suspends them all while NATS is disconnected (every read then goes to the backends).
 */
export function gatewayFollowings(readModels: ReadonlyArray<FreshCache<unknown>>, authenticator: Authenticator): Following<unknown>[] {
  const invalidateCustomer = ({ customerId }: { customerId: string }) => {
    for (const model of readModels) model.invalidate(customerId);
  };
  return [
    following(announcements.walletMoved, invalidateCustomer),
    following(announcements.topupsChanged, invalidateCustomer),
    following(announcements.billingChanged, invalidateCustomer),
    following(announcements.keyRevoked, ({ keyId }) => authenticator.forgetKey(keyId)),
  ];
}
