import { context, propagation, type Context } from '@opentelemetry/api';
import { connect, headers as natsHeaders, type ConnectionOptions, type MsgHdrs, type NatsConnection } from 'nats';
import '../patches/nats-write-coalescing';
import '../patches/nats-request-settling';
import type { Logger } from '../telemetry/logger';

export type { NatsConnection, MsgHdrs } from 'nats';

/**
 * Connects with the settings every service wants: reconnect forever (a NATS restart must not need a
 * service restart), bounded buffers while disconnected, no stack captured per request, and log lines for each
 * state change.
 */
export async function connectNats(
  url: string,
  name: string,
  logger: Logger,
  options: Partial<ConnectionOptions> = {},
): Promise<NatsConnection> {
  const connection = await connect({
    servers: url.split(','),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    reconnectJitter: 100,
    timeout: 5_000,
    pingInterval: 10_000,
    waitOnFirstConnect: false,
    // nats.js otherwise builds an Error (capturing a stack) at every request, only to enrich a timeout's trace:
    // that was 8 % of a connector's CPU. Our logs name the subject and the operation that timed out already.
    noAsyncTraces: true,
    ...options,
  });
  void (async () => {
    for await (const status of connection.status()) {
      if (status.type === 'pingTimer') continue;
      logger.info({ nats_status: status.type, data: typeof status.data === 'string' ? status.data : undefined }, 'nats connection status');
    }
  })().catch(() => undefined);
  return connection;
}

const setter = {
  set(carrier: MsgHdrs, key: string, value: string) {
    carrier.set(key, value);
  },
};
const getter = {
  keys(carrier: MsgHdrs): string[] {
    return carrier.keys();
  },
  get(carrier: MsgHdrs, key: string): string | undefined {
    // NATS header names keep their case; W3C names are lower case, so look both ways.
    return carrier.get(key) || carrier.get(key.toLowerCase()) || undefined;
  },
};

/** Writes the W3C trace context of `activeContext` into NATS headers. */
export function injectTraceHeaders(headers: MsgHdrs = natsHeaders(), activeContext: Context = context.active()): MsgHdrs {
  propagation.inject(activeContext, headers, setter);
  return headers;
}

const sharedHeaders = new WeakMap<Context, MsgHdrs | null>();

/**
 * The trace headers of every message sent under `activeContext`, made once per context and shared (a fan-out
 * sends twenty messages under one span: one W3C context written rather than twenty); undefined when there is no
 * context to carry (tracing off). The object is shared: never add to it.
 */
export function sharedTraceHeaders(activeContext: Context = context.active()): MsgHdrs | undefined {
  let headers = sharedHeaders.get(activeContext);
  if (headers === undefined) {
    const made = injectTraceHeaders(natsHeaders(), activeContext);
    headers = made.keys().length > 0 ? made : null;
    sharedHeaders.set(activeContext, headers);
  }
  return headers ?? undefined;
}

/** Reads the W3C trace context a publisher put into NATS headers. */
export function extractTraceContext(headers: MsgHdrs | undefined): Context {
  if (!headers) return context.active();
  return propagation.extract(context.active(), headers, getter);
}

export { natsHeaders };

const encoder = new TextEncoder();

/**
 * Publishes an announcement whose loss the receivers tolerate (they also catch up on their own schedule):
 * nothing is sent without a live connection, and a failed publish is reported as false, never thrown.
 */
export function publishBestEffort(nats: NatsConnection | undefined, subject: string, data: string, headers?: MsgHdrs): boolean {
  if (!nats || nats.isClosed()) return false;
  try {
    nats.publish(subject, encoder.encode(data), headers ? { headers } : undefined);
    return true;
  } catch {
    return false;
  }
}
