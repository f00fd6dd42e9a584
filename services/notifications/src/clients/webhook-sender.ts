import net from 'node:net';
import { Agent, request } from 'undici';
import { classifyAddress, refusalReason } from '../domain/address-class';
import { hostOf, type Resolve } from '../domain/url-policy';
import { publicOnlyLookup, systemResolve } from './public-lookup';

export interface SendOutcome {
  ok: boolean;
  /** The HTTP status, when the endpoint answered. */
  status?: number;
  /** Why it failed, in words, for the endpoint's last error. */
  error?: string;
}

export interface Delivery {
  /** Whose delivery it is: each customer's deliveries have connections of their own. */
  customerId: string;
  url: string;
  body: string;
  headers: Record<string, string>;
  /** Aborts the request: the delivery timeout, counted from the moment it is sent, or the worker stopping. */
  signal: AbortSignal;
}

export interface WebhookSender {
  send(delivery: Delivery): Promise<SendOutcome>;
  /** Closes a customer's connections (it has no endpoint left to deliver to). */
  release(customerId: string): void;
  close(): Promise<void>;
}

/** A receiver's answer is read up to this much and dropped: it only has to say 2xx. */
const responseBytesRead = 64 * 1_024;
/** An idle keep-alive connection is closed after this long (receivers' own idle timeouts are often 5 s). */
const keepAliveIdleMs = 4_000;

export interface WebhookSenderOptions {
  allowPrivate: boolean;
  /** Resolves endpoint hosts; the address checked is the one connected to. */
  resolve?: Resolve;
  /**
   * Connections one customer may hold to one host:port. At least the deliveries a customer may have in flight,
   * so a customer's request never waits in the pool for a connection: it is sent as soon as it is made.
   */
  connectionsPerOrigin?: number;
}

/**
 * POSTs deliveries with undici, each customer through an Agent of its own: one customer's slow or hanging
 * endpoints hold only that customer's connections, never another's, even on a host they share (a common relay
 * service). 2xx is success; anything else, a timeout (the caller's signal) or a connection failure is a failure
 * to retry. Redirects are not followed: a 3xx is a failure like any other non-2xx.
 */
export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const lookup = publicOnlyLookup(options.resolve ?? systemResolve, options.allowPrivate);
  // One per customer with an endpoint (released with its last endpoint), so bounded by the endpoints.
  const agents = new Map<string, Agent>();
  const agentFor = (customerId: string): Agent => {
    let agent = agents.get(customerId);
    if (!agent) {
      agent = new Agent({
        connections: options.connectionsPerOrigin ?? 16,
        pipelining: 1,
        keepAliveTimeout: keepAliveIdleMs,
        // The caller's signal is the deadline; the pool's own timeouts would only cut it shorter.
        headersTimeout: 0,
        bodyTimeout: 0,
        connect: { lookup, timeout: 0 },
      });
      agents.set(customerId, agent);
    }
    return agent;
  };

  return {
    async send(delivery) {
      let target: URL;
      try {
        target = new URL(delivery.url);
      } catch {
        return { ok: false, error: 'the endpoint URL is not valid' };
      }
      // A literal address is connected to without a lookup, so it is checked here.
      const host = hostOf(target);
      if (!options.allowPrivate && net.isIP(host)) {
        const verdict = classifyAddress(host);
        if (!verdict.public) return { ok: false, error: refusalReason(host, verdict) };
      }
      try {
        const response = await request(target, {
          dispatcher: agentFor(delivery.customerId),
          method: 'POST',
          headers: { 'content-type': 'application/json', ...delivery.headers },
          body: delivery.body,
          signal: delivery.signal,
        });
        await response.body.dump({ limit: responseBytesRead }).catch(() => undefined);
        const status = response.statusCode;
        return status >= 200 && status < 300 ? { ok: true, status } : { ok: false, status, error: `answered ${status}` };
      } catch (error) {
        if (delivery.signal.aborted) return { ok: false, error: 'no answer within the delivery timeout' };
        return { ok: false, error: failureReason(error) };
      }
    },
    release(customerId) {
      const agent = agents.get(customerId);
      agents.delete(customerId);
      agent?.destroy().catch(() => undefined);
    },
    async close() {
      const closing = [...agents.values()].map((agent) => agent.destroy().catch(() => undefined));
      agents.clear();
      await Promise.all(closing);
    },
  };
}

/** The innermost message of an undici failure ("fetch failed" says nothing; its cause does). */
function failureReason(error: unknown): string {
  let current: unknown = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(error);
}
