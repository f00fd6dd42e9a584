/**
 * `webhooks:listen`: a local receiver, like Stripe's `listen`. It makes a webhook endpoint pointing at itself
 * (or at --public-url, a tunnel to it), checks each delivery's signature, prints the event and, with
 * --forward-to, passes the delivery on unchanged (same body, same signature) to the application being
 * developed, answering the service with the application's status so a failure there is retried. The endpoint
 * is deleted when the command stops (Ctrl-C, SIGTERM, or --max-events reached).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook, WebhookSignatureError } from '../webhooks';
import { numberFlag, UsageError, type CommandContext } from './context';

const bodyBytesMax = 1_048_576;
const forwardTimeoutMs = 10_000;

function readBody(request: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > bodyBytesMax) {
        reject(new Error('body too large'));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

async function forward(target: string, body: Buffer, request: http.IncomingMessage): Promise<number> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const name of ['mtx-signature', 'mtx-event-id', 'mtx-event-type']) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const response = await fetch(target, { method: 'POST', headers, body, signal: AbortSignal.timeout(forwardTimeoutMs) });
  await response.arrayBuffer().catch(() => undefined);
  return response.status;
}

export async function webhooksListen({ client, flags, io }: CommandContext): Promise<number> {
  const port = numberFlag(flags.port, '--port') ?? 0;
  const maxEvents = numberFlag(flags['max-events'], '--max-events');
  const forwardTo = flags['forward-to'];
  if (forwardTo && !/^https?:\/\//.test(forwardTo)) throw new UsageError('--forward-to must be an http(s) URL');
  const enabledEvents = flags.events ? flags.events.split(',').map((type) => type.trim()) : ['*'];

  let secret = '';
  let received = 0;
  let finish: (() => void) | undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const server = http.createServer((request, response) => {
    void (async () => {
      try {
        const body = await readBody(request);
        const signature = request.headers['mtx-signature'];
        let event: ReturnType<typeof verifyWebhook>;
        try {
          event = verifyWebhook(body, typeof signature === 'string' ? signature : undefined, secret);
        } catch (error) {
          if (!(error instanceof WebhookSignatureError)) throw error;
          io.stderr.write(`refused a delivery: ${error.message}\n`);
          response.writeHead(400).end();
          return;
        }
        let status = 200;
        let note = '';
        if (forwardTo) {
          try {
            status = await forward(forwardTo, body, request);
            note = ` → ${forwardTo} ${status}`;
          } catch (error) {
            status = 502;
            note = ` → ${forwardTo} failed: ${(error as Error).message}`;
          }
        }
        const line = flags.json
          ? `${JSON.stringify(event)}\n`
          : `${new Date(event.created * 1000).toISOString()}  ${event.type.padEnd(18)}  ${event.id}${note}\n`;
        io.stdout.write(line);
        response.writeHead(status).end();
        received += 1;
        if (maxEvents !== undefined && received >= maxEvents) finish?.();
      } catch (error) {
        io.stderr.write(`delivery failed: ${(error as Error).message}\n`);
        if (!response.headersSent) response.writeHead(500).end();
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const url = flags['public-url'] ?? `http://127.0.0.1:${address.port}/`;
  let endpointId: string | undefined;
  try {
    const endpoint = await client.webhookEndpoints.create({
      url,
      enabled_events: enabledEvents as never,
      description: 'mtx webhooks:listen',
    });
    endpointId = endpoint.id;
    secret = endpoint.secret;
    io.stderr.write(
      `listening on http://127.0.0.1:${address.port}/ as endpoint ${endpoint.id} (${enabledEvents.join(', ')}); secret ${secret}\n` +
        `${forwardTo ? `forwarding to ${forwardTo}; ` : ''}Ctrl-C stops and deletes the endpoint\n`,
    );
    const stop = () => finish?.();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    await finished;
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  } finally {
    if (endpointId) await client.webhookEndpoints.delete(endpointId).catch(() => undefined);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    if (endpointId) io.stderr.write(`endpoint ${endpointId} deleted; ${received} event(s) received\n`);
  }
  return 0;
}
