/**
 * Be told instead of polling: a webhook endpoint pointing at a receiver started here, a batch placed, and its
 * `batch.settled` event received, its signature checked with `verifyWebhook` (on the raw body, with the secret
 * shown once at creation) and printed. The same events stay listed for 30 days by `client.events.list()`.
 *
 * Run against `npm start`: `npx tsx services/client/examples/webhooks.ts` (a local stack delivers to
 * 127.0.0.1; in production an endpoint must be a public http(s) URL). Elsewhere set MTX_BASE_URL, MTX_API_KEY
 * and MTX_ACCOUNTS. EXAMPLE_WAIT_SECONDS (default 30) bounds the wait.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MtxClient, loadSettings, verifyWebhook, type WebhookEvent } from '../src';

async function main(): Promise<void> {
  const settings = loadSettings();
  const client = new MtxClient({ baseUrl: settings.baseUrl, apiKey: settings.apiKey });
  const account = settings.accounts.find((candidate) => candidate.symbol_suffix !== undefined);
  if (!account) throw new Error('no account: set MTX_ACCOUNTS or run `npm start`');

  let secret = '';
  const received: WebhookEvent[] = [];
  const receiver = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        // The raw bytes as they arrived: a body parsed and serialised again would not match the signature.
        const event = verifyWebhook(Buffer.concat(chunks), request.headers['mtx-signature'] as string | undefined, secret);
        response.writeHead(200).end();
        console.log(`received ${event.type} ${event.id}`);
        received.push(event);
      } catch (error) {
        console.log(`refused a delivery: ${(error as Error).message}`);
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/mtx`;
  const endpoint = await client.webhookEndpoints.create({ url, enabled_events: ['batch.settled'], description: 'webhooks example' });
  secret = endpoint.secret;
  console.log(`endpoint ${endpoint.id} → ${url}`);
  try {
    const batch = await client.orders.place({
      orders: [
        { account_id: account.id, symbol: `EURUSD${account.symbol_suffix}`, operation: 'buy', volume: 0.1, comment: 'webhooks example' },
      ],
    });
    console.log(`placed batch ${batch.batch_id}`);
    const until = Date.now() + Number(process.env.EXAMPLE_WAIT_SECONDS ?? 30) * 1000;
    const settledEvent = () => received.find((item) => item.type === 'batch.settled' && item.data.batch_id === batch.batch_id);
    while (!settledEvent()) {
      if (Date.now() > until) throw new Error(`no batch.settled for ${batch.batch_id} in time`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const event = settledEvent()!;
    console.log(`batch.settled for ${batch.batch_id}: ${JSON.stringify(event.data.summary)}`);
    const listed = await client.events.list({ type: 'batch.settled', limit: 5 });
    console.log(`GET /v1/events lists it: ${listed.data.some((item) => item.id === event.id)}`);
  } finally {
    await client.webhookEndpoints.delete(endpoint.id);
    receiver.closeAllConnections();
    receiver.close();
  }
}

main().catch((error: unknown) => {
  console.error(`webhooks example failed: ${(error as { describe?: () => string }).describe?.() ?? (error as Error).message}`);
  process.exitCode = 1;
});
