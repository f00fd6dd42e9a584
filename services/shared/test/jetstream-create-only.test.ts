import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DiscardPolicy, ErrorCode, StorageType } from 'nats';
import { isAlreadyStored, publishCreateOnly } from '../src/messaging/jetstream-create-only';
import { createLogger } from '../src/telemetry/logger';
import { connectNats, type NatsConnection } from '../src/messaging/nats';

let connection: NatsConnection;
const stream = `CREATE_ONLY_${process.pid}`;
const root = `create_only_${process.pid}`;
const encode = (text: string) => new TextEncoder().encode(text);

beforeAll(async () => {
  connection = await connectNats(inject('natsUrl'), 'shared-create-only-test', createLogger('test', { level: 'silent' }));
  const manager = await connection.jetstreamManager();
  await manager.streams.add({
    name: stream,
    subjects: [`${root}.>`],
    storage: StorageType.Memory,
    max_msgs_per_subject: 1,
    // Two messages in all: the third create on a fresh subject finds the stream full.
    max_msgs: 2,
    discard: DiscardPolicy.New,
  });
});

afterAll(async () => {
  await connection?.jetstreamManager().then((manager) => manager.streams.delete(stream));
  await connection?.close();
});

describe('publishCreateOnly against a real JetStream', () => {
  it('stores the first message of a subject and refuses every later one as already stored, keeping the first', async () => {
    await publishCreateOnly(connection, `${root}.a`, encode('first'), 2_000);
    const refusal = await publishCreateOnly(connection, `${root}.a`, encode('second'), 2_000).catch((error: unknown) => error);
    expect(isAlreadyStored(refusal)).toBe(true);
    expect(refusal).toMatchObject({ code: '400', api_error: { err_code: 10071 } });
    const stored = await connection.jetstreamManager().then((manager) => manager.streams.getMessage(stream, { last_by_subj: `${root}.a` }));
    expect(new TextDecoder().decode(stored.data)).toBe('first');
  });

  it('reports a full stream as a refusal that is not "already stored", and a subject no stream holds as no responders', async () => {
    await publishCreateOnly(connection, `${root}.b`, encode('b'), 2_000);
    const full = await publishCreateOnly(connection, `${root}.c`, encode('c'), 2_000).catch((error: unknown) => error);
    expect(full).toMatchObject({ api_error: { code: 503 } });
    expect(isAlreadyStored(full)).toBe(false);
    await expect(publishCreateOnly(connection, `nobody_${process.pid}.x`, encode('x'), 2_000)).rejects.toMatchObject({
      code: ErrorCode.NoResponders,
    });
  });
});
