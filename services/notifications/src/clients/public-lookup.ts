import dns from 'node:dns';
import net, { type LookupFunction } from 'node:net';
import { classifyAddress, refusalReason } from '../domain/address-class';
import type { Resolve } from '../domain/url-policy';

/** Resolves as the system does (getaddrinfo, so /etc/hosts too): every address of the name. */
export const systemResolve: Resolve = async (hostname) =>
  (await dns.promises.lookup(hostname, { all: true })).map((entry) => entry.address);

/**
 * A `lookup` for net/tls.connect that resolves the name, refuses it if any of its addresses is not public, and
 * hands the socket exactly the addresses it checked: the check and the connection use one answer, so a name
 * cannot resolve to a public address for the check and to an internal one for the connection (DNS rebinding).
 * TLS still verifies the certificate against the name, and the Host header is still the name.
 */
export function publicOnlyLookup(resolve: Resolve, allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    const answer = (error: Error | null, addresses: dns.LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      if (options.all) return (callback as unknown as (error: null, addresses: dns.LookupAddress[]) => void)(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    };
    const wanted = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : (options.family ?? 0);
    resolve(hostname).then(
      (found) => {
        const addresses = found
          .map((address) => ({ address, family: net.isIP(address) }))
          .filter((entry) => entry.family !== 0 && (!wanted || entry.family === wanted));
        if (addresses.length === 0) return answer(new Error(`${hostname} has no address`), []);
        if (!allowPrivate)
          for (const { address } of addresses) {
            const verdict = classifyAddress(address);
            if (!verdict.public) return answer(new Error(refusalReason(address, verdict, hostname)), []);
          }
        answer(null, addresses);
      },
      (error: unknown) => answer(error instanceof Error ? error : new Error(`${hostname} does not resolve`), []),
    );
  };
}
