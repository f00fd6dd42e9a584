import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode, type KV } from 'nats';
import { Writable } from 'node:stream';
import { KvClaimStore } from '@mtx/connector-runtime/claims';
import { loadConnectorConfig } from '@mtx/connector-runtime/config';
import { connectorCodecs, terminalSubject, type CloseReplyMessage, type PlaceReplyMessage } from '@mtx/shared/connector/messages';
import { createLogger } from '@mtx/shared/logger';
import { createConnectorMt5 } from '../src/app';
import { startExecutionStack, type ExecutionStack } from '../../execution/test/stack';

/** Claims per account message: one JetStream round trip per message, and a message seen before sends nothing. */
let stack: ExecutionStack;
let claims: KV;
let sequence = 0;

beforeAll(async () => {
  stack = await startExecutionStack({ label: 'claims' });
  await stack.control('/control/prices', 'POST', { frozen_all: true });
  claims = await stack.nats.jetstream().views.kv('connector_claims');
});

afterAll(async () => {
  await stack?.close();
});

const server = 'AlphaFX-Live';
const credentials = (login: string) => ({ server, login, password: 'secret' });
const received = async (login: string) =>
  (await stack.control(`/control/accounts/${server}/${login}`)).body.trade_requests_received as number;
const claimed = async (key: string) => (await claims.get(key)) !== null;

async function place(accountId: string, login: string, batchId: string, clientIds: string[]): Promise<PlaceReplyMessage> {
  const reply = await stack.nats.request(
    terminalSubject(stack.subjectRoot, 'mt5', accountId, 'place'),
    connectorCodecs.placeRequest.encode({
      account_id: accountId,
      credentials: credentials(login),
      legs: clientIds.map((clientId, index) => ({
        client_id: clientId,
        leg_index: index,
        symbol: 'EURUSD',
        operation: index % 2 ? 'sell' : 'buy',
        volume: 0.1,
      })),
      deadline_unix_ms: Date.now() + 3_000,
      batch_id: batchId,
    }),
    { timeout: 5_000 },
  );
  return connectorCodecs.placeReply.decode(reply.data);
}

async function close(accountId: string, login: string, base: string): Promise<CloseReplyMessage> {
  const reply = await stack.nats.request(
    terminalSubject(stack.subjectRoot, 'mt5', accountId, 'close'),
    connectorCodecs.closeRequest.encode({
      account_id: accountId,
      credentials: credentials(login),
      selector: { symbol: 'EURUSD', symbol_match: 'exact', side: 'any', kind: 'position' },
      tickets: [],
      client_id_base: base,
      deadline_unix_ms: Date.now() + 3_000,
      closes_max: 20,
      batch_id: base.split('-')[0]!,
    }),
    { timeout: 5_000 },
  );
  return connectorCodecs.closeReply.decode(reply.data);
}

describe('claims per account message', () => {
  it('claims a 5-leg message once, under its batch and account, and no leg on its own', async () => {
    const batchId = `bat_claimsA${process.pid}x${++sequence}`;
    const legs = Array.from({ length: 5 }, (_, index) => `${batchId}-${index}`);
    const reply = await place('acc_claims1', '9601', batchId, legs);
    expect(reply.results.map((result) => result.status)).toEqual(['filled', 'filled', 'filled', 'filled', 'filled']);
    expect(await claimed(`${batchId}-p-acc_claims1`)).toBe(true);
    for (const leg of legs) expect(await claimed(leg), leg).toBe(false);
  });

  it('sends nothing for a message seen before, and answers each leg with what the first did', async () => {
    const batchId = `bat_claimsB${process.pid}x${++sequence}`;
    const legs = Array.from({ length: 3 }, (_, index) => `${batchId}-${index}`);
    const first = await place('acc_claims2', '9602', batchId, legs);
    const before = await received('9602');
    const again = await place('acc_claims2', '9602', batchId, legs);
    expect(await received('9602')).toBe(before);
    expect(again.results.map((result) => [result.status, result.order])).toEqual(
      first.results.map((result) => [result.status, result.order]),
    );
    for (const result of again.results) expect(result.message).toContain('not sent again');
    // A leg the first message did not carry is not sent either: it can only be left unsent, never sent twice.
    const widened = await place('acc_claims2', '9602', batchId, [...legs, `${batchId}-9`]);
    expect(await received('9602')).toBe(before);
    expect(widened.results[3]!.status).toBe('unknown');
  });

  it("claims each leg on its own when the message is not one batch's", async () => {
    const batchId = `bat_claimsC${process.pid}x${++sequence}`;
    const foreign = `bat_other${process.pid}x${sequence}-0`;
    const reply = await place('acc_claims3', '9603', batchId, [`${batchId}-0`, foreign]);
    expect(reply.results.map((result) => result.status)).toEqual(['filled', 'filled']);
    expect(await claimed(`${batchId}-p-acc_claims3`)).toBe(false);
    expect(await claimed(`${batchId}-0`)).toBe(true);
    expect(await claimed(foreign)).toBe(true);
  });

  it("claims an account's closes once per message, and a close message seen before sends nothing", async () => {
    await place('acc_claims4', '9604', `bat_claimsD${process.pid}x${++sequence}`, [
      `bat_claimsD${process.pid}x${sequence}-0`,
      `bat_claimsD${process.pid}x${sequence}-1`,
    ]);
    const base = `bat_claimsE${process.pid}x${++sequence}-a0`;
    const before = await received('9604');
    const closed = await close('acc_claims4', '9604', base);
    expect(closed.status).toBe('closed');
    expect(closed.closed).toBe(2);
    expect(await received('9604')).toBe(before + 2);
    expect(await claimed(base)).toBe(true);
    for (const result of closed.results) expect(await claimed(`${base}-t${result.ticket}`)).toBe(false);
    const again = await close('acc_claims4', '9604', base);
    expect(await received('9604')).toBe(before + 2);
    expect(again.status).toBe('nothing_matched');
  });

  it('refuses a replica count the NATS deployment cannot hold, naming the setting; warns about a bucket made with another count', async () => {
    const silent = createLogger('test', { level: 'silent' });
    const tooMany = loadConnectorConfig('mt5', {
      ...stack.connectorEnv,
      CONNECTOR_CLAIMS_BUCKET: `claims_r3_${process.pid}`,
      CONNECTOR_CLAIMS_REPLICAS: '3',
    });
    // The bucket is opened by start: building the connector asks NATS nothing.
    await expect(createConnectorMt5({ config: tooMany, logger: silent, nats: stack.nats }).start()).rejects.toThrow(
      /CONNECTOR_CLAIMS_REPLICAS=3 is more than this NATS deployment holds/,
    );

    const bucket = `claims_existing_${process.pid}`;
    await stack.nats.jetstream().views.kv(bucket, { history: 1, replicas: 1 });
    const lines: Array<{ msg: string; replicas?: number; setting?: number }> = [];
    const capture = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(chunk.toString('utf8')));
        done();
      },
    });
    const store = await KvClaimStore.open(stack.nats, {
      bucket,
      ttlMs: 60_000,
      owner: 'test',
      replicas: 2,
      logger: createLogger('test', { level: 'warn' }, capture),
    });
    expect(lines.find((line) => line.msg.includes('CONNECTOR_CLAIMS_REPLICAS=2'))).toMatchObject({ replicas: 1, setting: 2 });
    // Used as it is.
    expect(await store.claim(`k-${process.pid}`)).toBe(true);
    expect(await store.claim(`k-${process.pid}`)).toBe(false);
  });

  it("claims with the server's own answers: first wins, a repeat is refused, a missing bucket is retried then reported", async () => {
    const bucket = `claims_answers_${process.pid}`;
    const logger = createLogger('test', { level: 'silent' });
    const store = await KvClaimStore.open(stack.nats, { bucket, ttlMs: 60_000, owner: 'replica-a', replicas: 1, logger });
    const other = await KvClaimStore.open(stack.nats, { bucket, ttlMs: 60_000, owner: 'replica-b', replicas: 1, logger });
    const key = `bat_answers${process.pid}-p-acc_1`;
    expect(await store.claim(key)).toBe(true);
    expect(await other.claim(key)).toBe(false);
    expect(await store.claim(key)).toBe(false);
    // Read back through nats.js's own bucket: the claim is under the key's subject, with this replica's nonce.
    const entry = await stack.nats
      .jetstream()
      .views.kv(bucket)
      .then((kv) => kv.get(key));
    expect(JSON.parse(new TextDecoder().decode(entry!.value))).toMatchObject({ by: 'replica-a' });

    await stack.nats.jetstreamManager().then((manager) => manager.streams.delete(`KV_${bucket}`));
    const startedMs = Date.now();
    await expect(store.claim(`${key}-gone`, startedMs + 300)).rejects.toMatchObject({ code: ErrorCode.NoResponders });
    // Retried with pauses (25, 50, 100 ms...) and given up before the retry deadline, not at the first refusal.
    expect(Date.now() - startedMs).toBeGreaterThanOrEqual(150);
    expect(Date.now() - startedMs).toBeLessThan(1_000);
  });
});
