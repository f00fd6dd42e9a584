import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createLogger } from '@mtx/shared/logger';
import { connectNats, type NatsConnection } from '@mtx/shared/nats';
import { eventually } from '@mtx/shared/testing';
import { countUnsettled, inboxChannel, type InboxDelivery, type InboxRecord, JetStreamInbox, readInboxRecord } from '../src/clients/inbox';

/** The postback inbox on the real nats-server: what payments relies on for `recorded`/`duplicate` and the sweep. */
const logger = createLogger('inbox-test', { level: 'silent' });
const redeliverAfterMs = 600;
let nats: NatsConnection;

beforeAll(async () => {
  nats = await connectNats(inject('natsUrl'), 'inbox-test', logger);
});

afterAll(async () => nats?.close());

const deploymentName = () => `inbox_${crypto.randomBytes(4).toString('hex')}`;
const open = (deployment: string, connection: NatsConnection = nats) =>
  JetStreamInbox.open(connection, {
    deployment,
    replicas: 1,
    retentionMs: 3_600_000,
    redeliverAfterMs,
    pendingMax: 100,
    bytesMax: 1 << 24,
    logger,
  });
const record = (id: string): InboxRecord => ({
  id,
  provider: 'sandbox',
  topup_id: 7,
  customer_id: 'cus_inbox',
  transaction_id: id.split(':')[1]!,
  amount_units: '1000',
  received_at: new Date().toISOString(),
  recorded_at: new Date().toISOString(),
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the postback inbox in JetStream', () => {
  it('records a transaction once, whatever its id holds, and answers every later delivery duplicate', async () => {
    const deployment = deploymentName();
    const inbox = await open(deployment);
    const other = await open(deployment);
    try {
      // Characters a subject token cannot hold, and two ids that differ only in them.
      const ids = ['sandbox:tx.1 *>', 'sandbox:tx_1__', `sandbox:${'x'.repeat(300)}`];
      const answers = await Promise.all(
        ids.flatMap((id) => [inbox.record(record(id)), other.record(record(id)), inbox.record(record(id))]),
      );
      for (let index = 0; index < ids.length; index++)
        expect(answers.slice(index * 3, index * 3 + 3).sort()).toEqual(['duplicate', 'duplicate', 'recorded']);
      expect(await readInboxRecord(nats, deployment, ids[0]!)).toMatchObject({ id: ids[0], transaction_id: 'tx.1 *>' });
      expect(await readInboxRecord(nats, deployment, 'sandbox:never')).toBeNull();
      expect(await countUnsettled(nats, deployment)).toBe(3);
      expect(inboxChannel(deployment).stream).toBe(`PAYMENTS_INBOX_${deployment}`);
    } finally {
      await inbox.stop();
      await other.stop();
    }
  });

  it('keeps a record it holds from other replicas while it lives, and hands it on after its crash', async () => {
    const deployment = deploymentName();
    const first = await open(deployment);
    const second = await open(deployment);
    const seenByFirst: InboxDelivery[] = [];
    const seenBySecond: Array<{ delivery: InboxDelivery; atMs: number }> = [];
    await first.deliver((delivery) => seenByFirst.push(delivery));
    await first.record(record('sandbox:held'));
    await eventually(async () => expect(seenByFirst).toHaveLength(1));
    await second.deliver((delivery) => seenBySecond.push({ delivery, atMs: performance.now() }));
    // Held three times longer than the redelivery delay: renewed, so never delivered elsewhere.
    await sleep(redeliverAfterMs * 3);
    expect(seenBySecond).toHaveLength(0);
    expect(await first.oldestUnsettledAgeMs()).toBeGreaterThanOrEqual(redeliverAfterMs * 3);
    // The holder dies without a word (stop() is what a crash leaves: no settle, no release, no more renewals).
    const crashedAtMs = performance.now();
    await first.stop();
    await eventually(async () => expect(seenBySecond).toHaveLength(1), 5_000, 10);
    expect(seenBySecond[0]!.atMs - crashedAtMs).toBeLessThan(redeliverAfterMs * 2 + 500);
    expect(seenBySecond[0]!.delivery.record.id).toBe('sandbox:held');
    seenBySecond[0]!.delivery.settle();
    await eventually(async () => expect(await countUnsettled(nats, deployment)).toBe(0));
    expect(await second.oldestUnsettledAgeMs()).toBe(0);
    await sleep(redeliverAfterMs * 2);
    expect(seenBySecond).toHaveLength(1);
    await second.stop();
  });

  it('delivers a released record again after the delay it names, and a settled one never', async () => {
    const deployment = deploymentName();
    const inbox = await open(deployment);
    const deliveries: Array<{ delivery: InboxDelivery; atMs: number }> = [];
    await inbox.deliver((delivery) => deliveries.push({ delivery, atMs: performance.now() }));
    try {
      await inbox.record(record('sandbox:retried'));
      await eventually(async () => expect(deliveries).toHaveLength(1));
      deliveries[0]!.delivery.release(400);
      await eventually(async () => expect(deliveries).toHaveLength(2), 5_000, 10);
      expect(deliveries[1]!.atMs - deliveries[0]!.atMs).toBeGreaterThanOrEqual(380);
      // Settling twice, or releasing after settling, changes nothing.
      deliveries[1]!.delivery.settle();
      deliveries[1]!.delivery.settle();
      deliveries[1]!.delivery.release();
      await sleep(redeliverAfterMs * 2);
      expect(deliveries).toHaveLength(2);
      expect(await countUnsettled(nats, deployment)).toBe(0);
    } finally {
      await inbox.stop();
    }
  });

  it('refuses a record it cannot store as unavailable (the provider delivers again), not as a failure', async () => {
    const connection = await connectNats(inject('natsUrl'), 'inbox-test-closing', logger);
    const inbox = await open(deploymentName(), connection);
    await connection.close();
    await expect(inbox.record(record('sandbox:closed'))).rejects.toMatchObject({ code: 'unavailable', httpStatus: 503 });
  });

  it('refuses to start with more copies than the NATS deployment holds, naming the setting', async () => {
    await expect(
      JetStreamInbox.open(nats, {
        deployment: deploymentName(),
        replicas: 3,
        retentionMs: 3_600_000,
        redeliverAfterMs,
        pendingMax: 100,
        bytesMax: 1 << 24,
        logger,
      }),
    ).rejects.toThrow(/PAYMENTS_INBOX_REPLICAS=3 is more than this NATS deployment holds/);
  });
});
