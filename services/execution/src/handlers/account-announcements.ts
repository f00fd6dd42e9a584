import { accountChangedSubject, type NatsConnection } from '@mtx/shared/nats';
import type { Logger } from '@mtx/shared/logger';

/** What the account cache needs to hear: an account changed on another replica, or that announcements may be lost. */
export interface AccountCache {
  observeChange(accountId: string): void;
  forgetAll(): void;
}

/** The account id of an announcement `{account_id}`, or null when it names none. */
export function readAccountChange(data: Uint8Array): string | null {
  try {
    const { account_id: accountId } = JSON.parse(new TextDecoder().decode(data)) as { account_id?: unknown };
    return typeof accountId === 'string' && /^acc_[0-9A-Za-z]{1,64}$/.test(accountId) ? accountId : null;
  } catch {
    return null;
  }
}

/**
 * Keeps every replica's account cache honest: each account change announced by a replica drops the account
 * here. While the NATS connection is down announcements may be missed, so on every disconnection and again once
 * the subscription is back the whole cache is dropped (a change missed meanwhile was bounded by ACCOUNT_CACHE_MS).
 * The status loop ends when the connection is closed.
 */
export function followAccountChanges(nats: NatsConnection, cache: AccountCache, logger: Logger): { close(): void } {
  const subscription = nats.subscribe(accountChangedSubject, {
    callback: (error, message) => {
      if (error) return;
      const accountId = readAccountChange(message.data);
      if (accountId === null) logger.warn({ subject: accountChangedSubject }, 'ignored an account change without an account id');
      else cache.observeChange(accountId);
    },
  });
  let closed = false;
  void (async () => {
    for await (const status of nats.status()) {
      if (closed) return;
      if (status.type === 'disconnect' || status.type === 'reconnecting') cache.forgetAll();
      else if (status.type === 'reconnect')
        void nats
          .flush()
          .then(() => cache.forgetAll())
          .catch(() => undefined);
    }
  })().catch(() => undefined);
  return {
    close() {
      closed = true;
      subscription.unsubscribe();
    },
  };
}
