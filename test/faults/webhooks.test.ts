/**
 * Webhook delivery under a killed notifier: two notifier replicas, the leader killed with SIGKILL twice while
 * batches are placed, each killed one restarted. Every batch.settled must reach the customer's endpoint (nothing
 * lost), in the order the batches were placed, and any event delivered more than once must carry the same id.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@mtx/shared/testing';
import { verifyWebhook } from '../../services/client/src/webhooks';
import { brokerServers, errorKind, FaultStack, sleep } from './stack';
import { printSummary, recordFault, seedFromEnvironment } from './summary';
import { tally } from './verify';

let stack: FaultStack;

beforeAll(async () => {
  stack = await FaultStack.start({
    label: 'webhooks',
    env: { WEBHOOK_RETRY_BASE_MS: '200', WEBHOOK_RETRY_MAX_MS: '1000', NOTIFY_LEADER_LEASE_MS: '2000' },
  });
}, 240_000);

afterAll(async () => {
  if (stack?.serviceErrors.length)
    process.stdout.write(`[faults/webhooks] service error lines (see ${stack.logFile}):\n${stack.serviceErrors.slice(-15).join('\n')}\n`);
  await stack?.close();
  printSummary();
});

describe('fault suite: customer webhooks', () => {
  it('webhook delivery under a killed notifier: nothing lost, in order, duplicates only with the same event id', async () => {
    const seed = seedFromEnvironment('webhook delivery');
    const startedAtMs = Date.now();
    const customer = await stack.newCustomer('hooks', {
      accountsPerServer: 1,
      servers: brokerServers.filter((server) => server.platform === 'mt4').slice(0, 1),
    });
    const account = customer.accounts[0]!;
    const deliveries: Array<{ id: string; batchId: string }> = [];
    let secret = '';
    let refused = 0;
    const receiver = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        try {
          const event = verifyWebhook(Buffer.concat(chunks), String(request.headers['mtx-signature']), secret);
          deliveries.push({ id: event.id, batchId: String(event.data.batch_id) });
          response.writeHead(200).end();
        } catch {
          refused += 1;
          response.writeHead(400).end();
        }
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
    const replica = await stack.startReplica('notifications', 'notifications-2');
    const endpoint = await stack.request('POST', `${stack.gatewayUrl}/v1/webhook_endpoints`, {
      key: customer.fullKey,
      body: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`, enabled_events: ['batch.settled'] },
    });
    expect(endpoint.status).toBe(201);
    secret = endpoint.body.secret;

    const kinds: Record<string, number> = {};
    const placed: string[] = [];
    let requests = 0;
    let stopLoad = false;
    const load = (async () => {
      while (!stopLoad) {
        const answer = await stack.request('POST', `${stack.gatewayUrl}/v1/orders`, {
          key: customer.fullKey,
          body: { orders: [{ account_id: account.id, symbol: account.symbol, operation: 'buy', volume: 0.1 }] },
        });
        requests += 1;
        if (answer.status === 200) placed.push(answer.body.batch_id);
        else tally(kinds, errorKind(answer));
        await sleep(40);
      }
    })();
    // Kill whichever replica leads (both, one after the other), each restarted after the other has taken over.
    const notifiers = [stack.service('notifications'), replica];
    await sleep(1_500);
    await notifiers[0]!.kill('SIGKILL');
    await sleep(3_000);
    await notifiers[0]!.restart();
    await sleep(1_000);
    await notifiers[1]!.kill('SIGKILL');
    await sleep(3_000);
    await notifiers[1]!.restart();
    await sleep(1_500);
    stopLoad = true;
    await load;

    const settledIds = new Set<string>();
    await eventually(
      async () => {
        for (const delivery of deliveries) settledIds.add(delivery.batchId);
        return placed.every((batchId) => settledIds.has(batchId));
      },
      60_000,
      100,
    );
    const idsByBatch = new Map<string, Set<string>>();
    for (const delivery of deliveries) idsByBatch.set(delivery.batchId, (idsByBatch.get(delivery.batchId) ?? new Set()).add(delivery.id));
    const firstSeen = deliveries.map((delivery) => delivery.batchId).filter((batchId, index, all) => all.indexOf(batchId) === index);
    const lost = placed.filter((batchId) => !idsByBatch.has(batchId));
    const twiceWithAnotherId = [...idsByBatch.entries()].filter(([, ids]) => ids.size > 1).map(([batchId]) => batchId);
    const duplicates = deliveries.length - idsByBatch.size;
    recordFault({
      fault: '11. webhook delivery under a killed notifier (leader SIGKILL twice, 2 replicas)',
      load: `1 worker, ${placed.length} batches, webhook endpoint receiving batch.settled`,
      requests,
      errorsByKind: { ...kinds, ...(duplicates > 0 ? { 'webhook redelivered (same id)': duplicates } : {}) },
      moneyLostEurCents: 0,
      ordersLost: lost.length,
      ordersExecutedTwice: 0,
      seed,
      durationMs: Date.now() - startedAtMs,
      notes: `${placed.length} events, ${deliveries.length} deliveries, ${twiceWithAnotherId.length} under another id, ${refused} refused signatures`,
    });
    expect(placed.length).toBeGreaterThan(50);
    expect(lost, 'events lost').toEqual([]);
    expect(twiceWithAnotherId, 'a batch announced under two event ids').toEqual([]);
    expect(refused, 'deliveries whose signature did not verify').toBe(0);
    expect(firstSeen, 'first deliveries out of order').toEqual(placed.filter((batchId) => firstSeen.includes(batchId)));
    receiver.closeAllConnections();
    receiver.close();
  });
});
