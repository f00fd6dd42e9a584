import net from 'node:net';
import { AppError } from '@mtx/shared/errors';
import { classifyAddress, refusalReason } from './address-class';

/**
 * Where a webhook may be sent: http(s) only, no credentials in the URL, and only to global unicast addresses
 * (see address-class.ts), so an endpoint cannot make the service reach into its own network (SSRF). The host is
 * checked when the endpoint is created, and resolved and checked again on every connection, which then goes to
 * the very address checked (clients/public-lookup.ts): a name that resolves elsewhere later is still refused.
 * Redirects are never followed (a 3xx is a failed delivery), so an endpoint cannot bounce a delivery inward.
 * Local runs and tests allow private targets with WEBHOOKS_ALLOW_PRIVATE=1.
 */

export const endpointUrlLengthMax = 2_048;

/** The URL's host as a name or an address: no IPv6 brackets, no trailing root dot, lower case. */
export function hostOf(url: URL): string {
  return url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
}

function isLocalhostName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

function refuse(message: string, details?: Record<string, unknown>): AppError {
  return new AppError('invalid_request', message, { param: 'url', ...(details ? { details } : {}) });
}

/** 400 for an address that is not global unicast; `details.reason` is `address_not_public` for programs. */
function refuseAddress(host: string, address: string): AppError | undefined {
  const verdict = classifyAddress(address);
  if (verdict.public) return undefined;
  return refuse(`url's host ${refusalReason(address, verdict, host)}`, {
    reason: 'address_not_public',
    address,
    range: verdict.range,
    ...(verdict.embedded ? { embedded_ipv4: verdict.embedded } : {}),
  });
}

/** The endpoint URL, parsed, or 400 naming what is wrong with it (before any name is resolved). */
export function parseEndpointUrl(raw: string, allowPrivate: boolean): URL {
  if (raw.length > endpointUrlLengthMax) throw refuse(`url is longer than ${endpointUrlLengthMax} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('url is not a valid absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse('url must be http or https');
  if (url.username || url.password) throw refuse('url must not carry a user name or password');
  if (url.hash) throw refuse('url must not have a #fragment');
  const host = hostOf(url);
  if (!allowPrivate) {
    if (isLocalhostName(host)) throw refuse(`url points at ${host}, which is not a public host`, { reason: 'address_not_public', host });
    // The URL parser has already turned 2130706433, 0177.0.0.1 and 0x7f.1 into 127.0.0.1.
    const refused = net.isIP(host) ? refuseAddress(host, host) : undefined;
    if (refused) throw refused;
  }
  return url;
}

export type Resolve = (hostname: string) => Promise<string[]>;

/** Every address the URL's host resolves to must be public; 400 otherwise, or when it does not resolve. */
export async function checkEndpointAddresses(url: URL, allowPrivate: boolean, resolve: Resolve): Promise<void> {
  const host = hostOf(url);
  if (allowPrivate || net.isIP(host)) return;
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch {
    throw refuse(`url's host ${host} does not resolve`);
  }
  if (addresses.length === 0) throw refuse(`url's host ${host} does not resolve`);
  for (const address of addresses) {
    const refused = refuseAddress(host, address);
    if (refused) throw refused;
  }
}
