import { announcementSubjects, readAnnouncement, type NatsConnection } from '@mtx/shared/nats';
import type { Logger } from '@mtx/shared/logger';
import type { Subscription } from 'nats';
import type { ReadModel } from '../domain/read-model';

/**
 * Keeps the gateway's read models honest: every backend announcement of a customer's change invalidates the
 * customer, and while the NATS connection is down (announcements may be missed) the read models are off and
 * every read goes to the backends; they start empty again on reconnection. The status loop ends when the
 * connection is closed.
 */
export async function followAnnouncements(nats: NatsConnection, readModels: Array<ReadModel<unknown>>, logger: Logger): Promise<{ close(): void }> {
  for (const model of readModels) model.setEnabled(false);
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
            if (!closed && !disconnected) for (const model of readModels) model.setEnabled(true);
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
      for (const subscription of subscriptions) subscription.unsubscribe();
      for (const model of readModels) model.setEnabled(false);
    },
  };
}
