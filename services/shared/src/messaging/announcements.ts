import type { NatsConnection, Subscription } from 'nats';
import type { Logger } from '../telemetry/logger';
import { publishBestEffort } from './nats';

/**
 * The one registry of announcements: each subject, what its message says and how it is written. Every replica of
 * a reader hears them (no queue group); each says "this changed", so read caches drop or refresh it. They are
 * best effort: a lost one is bounded by the reader's freshness window (see FreshCache), and while NATS is
 * disconnected every reader's caches are suspended (`followAnnouncements`).
 */
export interface Announcement<T> {
  readonly subject: string;
  encode(value: T): string;
  /** The message's meaning, or null for one that does not say what it must (logged and ignored). */
  decode(data: Uint8Array): T | null;
}

const decoder = new TextDecoder();
const identifierPattern = /^[A-Za-z0-9_:.-]{1,128}$/;

function objectOf(data: Uint8Array): Record<string, unknown> | null {
  const text = decoder.decode(data);
  if (!text.startsWith('{')) return null;
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function identifier(value: unknown): string | null {
  return typeof value === 'string' && identifierPattern.test(value) ? value : null;
}

/** A customer's state changed, with the revision it changed to where the publisher keeps one. */
export interface CustomerChange {
  customerId: string;
  revision?: string;
}

function customerChange(subject: string): Announcement<CustomerChange> {
  return {
    subject,
    encode: ({ customerId, revision }) =>
      JSON.stringify(revision === undefined ? { customer_id: customerId } : { customer_id: customerId, revision }),
    decode(data) {
      const object = objectOf(data);
      // Replicas of the version before this registry announced top-up changes as the bare customer id.
      const customerId = identifier(object ? object.customer_id : decoder.decode(data));
      if (customerId === null) return null;
      const revision = identifier(object?.revision);
      return revision === null ? { customerId } : { customerId, revision };
    },
  };
}

/** A wallet moved: its new head, so readers can serve it without a lookup. */
export interface WalletMoved {
  customerId: string;
  sequence: number;
  balanceEurCents: number;
  heldEurCents: number;
}

const walletMoved: Announcement<WalletMoved> = {
  subject: 'events.wallet.moved',
  encode: (moved) =>
    JSON.stringify({
      customer_id: moved.customerId,
      sequence: moved.sequence,
      balance_eur_cents: moved.balanceEurCents,
      held_eur_cents: moved.heldEurCents,
    }),
  decode(data) {
    const object = objectOf(data);
    const customerId = identifier(object?.customer_id);
    const numbers = [object?.sequence, object?.balance_eur_cents, object?.held_eur_cents];
    if (customerId === null || !numbers.every((value) => Number.isSafeInteger(value))) return null;
    const [sequence, balanceEurCents, heldEurCents] = numbers as [number, number, number];
    return { customerId, sequence, balanceEurCents, heldEurCents };
  },
};

export const announcements = {
  /** Published by the wallet after every movement. */
  walletMoved,
  /** Published by payments when a customer's top-ups changed (created, credited, expired). */
  topupsChanged: customerChange('events.payments.topups_changed'),
  /** Published by billing after every revision change of a customer. */
  billingChanged: customerChange('events.billing.changed'),
  /** Published by execution when an account changed (billing status, disconnected, deleted). */
  accountChanged: {
    subject: 'events.execution.account_changed',
    encode: ({ accountId }: { accountId: string }) => JSON.stringify({ account_id: accountId }),
    decode(data: Uint8Array) {
      const accountId = objectOf(data)?.account_id;
      return typeof accountId === 'string' && /^acc_[0-9A-Za-z]{1,64}$/.test(accountId) ? { accountId } : null;
    },
  } satisfies Announcement<{ accountId: string }>,
  /** Published by whoever revokes an API key (the admin CLI); every gateway forgets the key at once. */
  keyRevoked: {
    subject: 'events.gateway.key_revoked',
    encode: ({ keyId, customerId }: { keyId: string; customerId: string }) => JSON.stringify({ key_id: keyId, customer_id: customerId }),
    decode(data: Uint8Array) {
      const object = objectOf(data);
      const keyId = identifier(object?.key_id);
      return keyId === null ? null : { keyId, customerId: identifier(object?.customer_id) ?? '' };
    },
  } satisfies Announcement<{ keyId: string; customerId: string }>,
} as const;

/**
 * Within one deployment's notifier replicas: a webhook endpoint changed (created, updated, disabled), so the
 * delivering leader follows it at once instead of at its next rescan. `<customer events root>-endpoints`.
 */
export function endpointChanged(channel: { subjectRoot: string }): Announcement<{ endpointId: string }> {
  return {
    subject: `${channel.subjectRoot}-endpoints`,
    encode: ({ endpointId }) => endpointId,
    decode(data) {
      const endpointId = decoder.decode(data);
      return /^we_[0-9A-Za-z]{1,64}$/.test(endpointId) ? { endpointId } : null;
    },
  };
}

/*
 * The other subjects are families with their own codecs, each defined once: customer events for webhooks
 * (`events.notify.<deployment>.<type>`, JetStream, customer-events.ts), the connectors' requests
 * (`<root>.<platform>.<account>.<op>`, connector/messages.ts) and payments' postback inbox
 * (`payments.inbox.<deployment>.<transaction>`, JetStream, services/payments/src/clients/inbox.ts).
 */

/**
 * Where the wallet announces every applied credit (JSON `{entry_id, customer_id, …}` with the trace in the
 * headers, at least once): billing retries past-due renewals on it. An event stream of its own, not a cache's
 * announcement, so its codec lives with its one reader (billing's credit-events handler).
 */
export const walletCreditedSubject = 'events.wallet.credited';

/** Publishes an announcement; false when NATS refused it at once (it is best effort: a reader's window bounds the loss). */
export function announce<T>(nats: NatsConnection | undefined, announcement: Announcement<T>, value: T): boolean {
  return publishBestEffort(nats, announcement.subject, announcement.encode(value));
}

/** What an announcement follower keeps honest: a cache suspended while announcements may be missed. */
export interface SuspendableCache {
  suspend(): void;
  resume(): void;
}

/** One announcement a reader follows, and what it does with each. */
export interface Following<T> {
  announcement: Announcement<T>;
  onMessage(value: T): void;
}

/** Pairs an announcement with its handler, keeping the value type checked. */
export function following<T>(announcement: Announcement<T>, onMessage: (value: T) => void): Following<unknown> {
  return { announcement, onMessage } as Following<unknown>;
}

/**
 * Subscribes a reader to its announcements and keeps its caches honest about what it may have missed: they are
 * suspended until the server has the subscriptions (a flush), on every disconnection, and until the
 * subscriptions are back after a reconnection; each resume distrusts what was loaded before. The status loop ends
 * when the connection closes or `close` is called.
 */
export async function followAnnouncements(
  nats: NatsConnection,
  followings: ReadonlyArray<Following<unknown>>,
  caches: readonly SuspendableCache[],
  logger: Logger,
): Promise<{ close(): void }> {
  for (const cache of caches) cache.suspend();
  const subscriptions: Subscription[] = followings.map(({ announcement, onMessage }) =>
    nats.subscribe(announcement.subject, {
      callback: (error, message) => {
        if (error) return;
        const value = announcement.decode(message.data);
        if (value === null) logger.warn({ subject: announcement.subject }, 'ignored an announcement that does not say what it must');
        else onMessage(value);
      },
    }),
  );
  let disconnected = false;
  let closed = false;
  void (async () => {
    for await (const status of nats.status()) {
      if (closed) return;
      if (status.type === 'disconnect' || status.type === 'reconnecting') {
        disconnected = true;
        for (const cache of caches) cache.suspend();
      } else if (status.type === 'reconnect') {
        disconnected = false;
        // Subscriptions are re-sent on reconnection; once the server has answered a flush it has them.
        void nats
          .flush()
          .then(() => {
            if (closed || disconnected) return;
            for (const cache of caches) cache.resume();
          })
          .catch(() => undefined);
      }
    }
  })().catch(() => undefined);
  // Until the server has the subscriptions, a change could go unannounced: answers are cached only after.
  await nats.flush();
  if (!closed && !disconnected) for (const cache of caches) cache.resume();
  return {
    close() {
      closed = true;
      for (const subscription of subscriptions) subscription.unsubscribe();
      for (const cache of caches) cache.suspend();
    },
  };
}
