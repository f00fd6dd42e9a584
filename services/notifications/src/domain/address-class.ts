import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which IP addresses a webhook may be sent to: global unicast only. The ranges are ipaddr.js's (loopback,
 * private, link-local, unique local, multicast, carrier-grade NAT, reserved and documentation, unspecified,
 * broadcast, …); an IPv6 address that carries an IPv4 one (compatible, mapped, translated, NAT64, 6to4, Teredo)
 * is judged by the IPv4 address it leads to, since that is where a connection to it ends up.
 */

export type AddressVerdict =
  | { public: true }
  | {
      public: false;
      /** The range that refuses it: ipaddr.js's name (`loopback`, `private`, …) or `not an IP address`. */
      range: string;
      /** The IPv4 address it carries, when that is what was refused. */
      embedded?: string;
    };

const publicVerdict: AddressVerdict = { public: true };

function ipv4Verdict(address: ipaddr.IPv4): AddressVerdict {
  const range = address.range();
  return range === 'unicast' ? publicVerdict : { public: false, range };
}

function ipv4From(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/** Judges the IPv4 addresses an IPv6 one leads to: public only if every one of them is. */
function embeddedVerdict(addresses: ipaddr.IPv4[]): AddressVerdict {
  for (const address of addresses) {
    const verdict = ipv4Verdict(address);
    if (!verdict.public) return { ...verdict, embedded: address.toString() };
  }
  return publicVerdict;
}

function ipv6Verdict(address: ipaddr.IPv6): AddressVerdict {
  const parts = address.parts;
  const range = address.range();
  if (parts.slice(0, 6).every((part) => part === 0)) {
    if (range === 'unspecified' || range === 'loopback') return { public: false, range };
    // IPv4-compatible ::a.b.c.d: deprecated (RFC 4291 §2.5.5.1), never a destination, whatever it carries.
    return { public: false, range: 'ipv4Compatible', embedded: ipv4From(parts[6]!, parts[7]!).toString() };
  }
  switch (range) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d, translated
      return embeddedVerdict([ipv4From(parts[6]!, parts[7]!)]);
    case 'rfc6052':
      // 64:ff9b::/96 is the well-known NAT64 prefix; 64:ff9b:1::/48 is for local use only (RFC 8215).
      if (parts[1] === 0xff9b && parts.slice(2, 6).every((part) => part === 0)) return embeddedVerdict([ipv4From(parts[6]!, parts[7]!)]);
      return { public: false, range: 'rfc8215 local-use NAT64' };
    case '6to4': // 2002:aabb:ccdd::/48 carries aa.bb.cc.dd
      return embeddedVerdict([ipv4From(parts[1]!, parts[2]!)]);
    case 'teredo': // 2001:0:server:flags:port:client, the client's address inverted
      return embeddedVerdict([ipv4From(parts[2]!, parts[3]!), ipv4From(parts[6]! ^ 0xffff, parts[7]! ^ 0xffff)]);
    case 'unicast':
      // Global unicast is 2000::/3; the rest of the space is unassigned or reserved.
      return (parts[0]! & 0xe000) === 0x2000 ? publicVerdict : { public: false, range: 'reserved' };
    default:
      return { public: false, range };
  }
}

/** Whether an IP address (in any of its written forms) is one a webhook may be sent to, and if not, why. */
export function classifyAddress(address: string): AddressVerdict {
  if (!net.isIP(address)) return { public: false, range: 'not an IP address' };
  const parsed = ipaddr.parse(address);
  return parsed.kind() === 'ipv4' ? ipv4Verdict(parsed as ipaddr.IPv4) : ipv6Verdict(parsed as ipaddr.IPv6);
}

export function isPublicAddress(address: string): boolean {
  return classifyAddress(address).public;
}

/**
 * Why an address is refused, in words: "2002:7f00:1:: carries 127.0.0.1 (loopback): not a public address", or
 * with the name that led to it, "intranet.example resolves to 10.0.0.7, which is private: not a public address".
 */
export function refusalReason(address: string, verdict: AddressVerdict, host?: string): string {
  if (verdict.public) return `${address} is a public address`;
  const why = verdict.embedded ? `carries ${verdict.embedded} (${verdict.range})` : `is ${verdict.range}`;
  const subject = host && host !== address ? `${host} resolves to ${address}, which` : address;
  return `${subject} ${why}: not a public address`;
}
