import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isPublicAddress } from '../domain/url-policy';

export interface SendOutcome {
  ok: boolean;
  /** The HTTP status, when the endpoint answered. */
  status?: number;
  /** Why it failed, in words, for the endpoint's last error. */
  error?: string;
}

export interface WebhookSender {
  send(url: string, body: string, headers: Record<string, string>, signal: AbortSignal): Promise<SendOutcome>;
  close(): void;
}

const responseBytesKept = 1_024;

/**
 * Resolves as the system does, then refuses a private, loopback or link-local address: the policy is applied to
 * the address actually connected to, so a name that resolved to a public address when the endpoint was made and
 * to an internal one now is still refused.
 */
function publicOnlyLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as dns.LookupAddress[];
      const refused = allowPrivate ? undefined : list.find((entry) => !isPublicAddress(entry.address));
      if (refused) return callback(new Error(`${hostname} resolves to ${refused.address}, which is not a public address`), '', 0);
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      const first = list[0];
      if (!first) return callback(new Error(`${hostname} has no address`), '', 0);
      callback(null, first.address, first.family);
    });
  };
}

/**
 * POSTs a delivery over keep-alive connections. 2xx is success; anything else, a timeout (the caller's signal)
 * or a connection failure is a failure to retry. The response body is drained and dropped.
 */
export function createWebhookSender(options: { allowPrivate: boolean; socketsPerHostMax?: number }): WebhookSender {
  const lookup = publicOnlyLookup(options.allowPrivate);
  const agentOptions = { keepAlive: true, maxSockets: options.socketsPerHostMax ?? 8, lookup };
  const agents = { 'http:': new http.Agent(agentOptions), 'https:': new https.Agent(agentOptions) };
  return {
    send(url, body, headers, signal) {
      return new Promise<SendOutcome>((resolve) => {
        let target: URL;
        try {
          target = new URL(url);
        } catch {
          resolve({ ok: false, error: 'the endpoint URL is not valid' });
          return;
        }
        const transport = target.protocol === 'https:' ? https : http;
        const agent = target.protocol === 'https:' ? agents['https:'] : agents['http:'];
        const request = transport.request(
          target,
          {
            method: 'POST',
            agent,
            signal,
            headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
          },
          (response) => {
            let kept = 0;
            response.on('data', (chunk: Buffer) => {
              kept += chunk.length;
              if (kept > responseBytesKept * 64) response.destroy();
            });
            response.on('error', () => undefined);
            response.on('close', () => {
              const status = response.statusCode ?? 0;
              resolve(status >= 200 && status < 300 ? { ok: true, status } : { ok: false, status, error: `answered ${status}` });
            });
          },
        );
        request.on('error', (error) => {
          resolve({ ok: false, error: signal.aborted ? 'no answer within the delivery timeout' : error.message });
        });
        request.end(body);
      });
    },
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}
