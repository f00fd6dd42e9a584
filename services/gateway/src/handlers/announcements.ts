import { announcementSubjects, readAnnouncement, type NatsConnection } from '@mtx/shared/nats';
import type { Logger } from '@mtx/shared/logger';
import type { Subscription } from 'nats';
import type { ReadModel } from '../domain/read-model';

/** Published by whoever revokes a key (the admin CLI), followed by every gateway replica: `{key_id, customer_id}`. */
export const keyRevokedSubject = 'events.gateway.key_revoked';

/** What the gateway's key cache needs to hear: a key revoked, or that announcements may have been missed. */
export interface KeyCache {
  forgetKey(keyId: string): void;
  forget(): void;
}

/** The key id of a revocation announcement, or null when it names none. */
export function readKeyRevocation(data: Uint8Array): string | null {
  try {
    const { key_id: keyId } = JSON.parse(new TextDecoder().decode(data)) as { key_id?: unknown };
    return typeof keyId === 'string' && keyId.length > 0 && keyId.length <= 128 ? keyId : null;
  } catch {
    return null;
  }
}

/**
 * Keeps the gateway's read models and key cache honest: every backend announcement of a customer's change
 * invalidates the customer, every key revocation drops the key. While the NATS connection is down
 * (announcements may be missed) the read models are off and every read goes to the backends; on reconnection
 * they start empty again and the key cache is cleared (a revocation missed meanwhile was bounded by the cache
 * time). The status loop ends when the connection is closed.
 */
export async function followAnnouncements(
  nats: NatsConnection,
  readModels: Array<ReadModel<unknown>>,
  keys: KeyCache,
  logger: Logger,
): Promise<{ close(): void }> {
  for (const model of readModels) model.setEnabled(false);
  const revocations = nats.subscribe(keyRevokedSubject, {
    callback: (error, message) => {
      if (error) return;
      const keyId = readKeyRevocation(message.data);
      if (keyId === null) logger.warn({ subject: keyRevokedSubject }, 'ignored a key revocation without a key id');
      else keys.forgetKey(keyId);
    },
  });
  const subscriptions: Subscription[] = Object.values(announcementSubjects).map((subject) =>
    nats.subscribe(subject, {
      callback: (error, message) => {
        if (error) return;
        const announcement = readAnnouncement(message.data);
        if (announcement === null) {
          logger.warn({ subject }, 'ignored an announcement without a customer id');
          return;
        }
        for (const model of readModels) model.invalidate(announcement.customerId);
      },
    }),
  );
  let disconnected = false;
  let closed = false;
  void (async () => {
    for await (const status of nats.status()) {
      if (status.type === 'disconnect' || status.type === 'reconnecting') {
        disconnected = true;
        for (const model of readModels) if (model.isEnabled) model.setEnabled(false);
      } else if (status.type === 'reconnect') {
        disconnected = false;
        // Subscriptions are re-sent on reconnection; once the server has answered a flush it has them, and
        // announcements flow again. A disconnect meanwhile turns the models off again (the loop sees it next).
        void nats
          .flush()
          .then(() => {
            if (closed || disconnected) return;
            keys.forget();
            for (const model of readModels) model.setEnabled(true);
          })
          .catch(() => undefined);
      }
    }
  })().catch(() => undefined);
  // Until the server has the subscriptions, a change could go unannounced: answers are cached only after.
  await nats.flush();
  for (const model of readModels) model.setEnabled(true);
  return {
    close() {
      closed = true;
      revocations.unsubscribe();
      for (const subscription of subscriptions) subscription.unsubscribe();
      for (const model of readModels) model.setEnabled(false);
    },
  };
}
