import net from 'node:net';
import { AppError } from '@mtx/shared/errors';

/**
 * Where a webhook may be sent: http(s) only, no credentials in the URL, and only to public addresses, so an
 * endpoint cannot make the service reach into its own network (SSRF). Addresses are checked when the endpoint
 * is created and again on every connection (a name may resolve elsewhere later). Local runs and tests allow
 * private targets with WEBHOOKS_ALLOW_PRIVATE=1.
 */

const blocked = new net.BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  blocked.addSubnet(network, prefix, 'ipv6');

export const endpointUrlLengthMax = 2_048;

/** An IPv4 address carried inside an IPv6 one (mapped ::ffff:a.b.c.d, or NAT64 64:ff9b::/96), else undefined. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d{1,3}(?:\.\d{1,3}){3})$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return undefined;
  const high = Number.parseInt(hex[1]!, 16);
  const low = Number.parseInt(hex[2]!, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** Whether an IP address is one a webhook may be sent to. */
export function isPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return !blocked.check(address, 'ipv4');
  if (family !== 6) return false;
  const inner = embeddedIpv4(address);
  if (inner) return net.isIPv4(inner) && !blocked.check(inner, 'ipv4');
  return !blocked.check(address, 'ipv6');
}

function refuse(message: string): AppError {
  return new AppError('invalid_request', message, { param: 'url' });
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
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate) {
    if (host === 'localhost' || host.endsWith('.localhost')) throw refuse(`url points at ${host}, which is not a public host`);
    if (net.isIP(host) && !isPublicAddress(host)) throw refuse(`url points at ${host}, a private, loopback or link-local address`);
  }
  return url;
}

export type Resolve = (hostname: string) => Promise<string[]>;

/** Every address the URL's host resolves to must be public; 400 otherwise, or when it does not resolve. */
export async function checkEndpointAddresses(url: URL, allowPrivate: boolean, resolve: Resolve): Promise<void> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (allowPrivate || net.isIP(host)) return;
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch {
    throw refuse(`url's host ${host} does not resolve`);
  }
  const inner = addresses.find((address) => !isPublicAddress(address));
  if (inner) throw refuse(`url's host ${host} resolves to ${inner}, a private, loopback or link-local address`);
}
