import { createHash } from 'node:crypto';

/**
 * The terminal registry: which account each terminal trades and the SHA-256 of its EA's token, kept in a
 * JetStream key-value bucket that execution writes (connecting and disconnecting an account) and the connectors
 * read when a terminal says `hello` (docs/terminal-bridge.md, "Security"). The token itself is never stored: it
 * reaches the terminal host sealed, and only its digest is here.
 */

export const terminalRegistryBucketDefault = 'terminal_registry';

export interface TerminalRegistryEntry {
  account_id: string;
  platform: 'mt4' | 'mt5';
  /** The trade server's own name, as the terminal reports it (AccountInfoString(ACCOUNT_SERVER)). */
  server: string;
  /** The trade login, as the terminal reports it (AccountInfoInteger(ACCOUNT_LOGIN)). */
  login: string;
  /** Hex SHA-256 of the token's UTF-8 bytes. */
  token_sha256: string;
}

/**
 * `<platform>.<login>.<server>.<token_sha256>`, the server name base64url-encoded (lower-cased first: terminals and
 * users write server names in either case) so that any name fits the bucket's key alphabet.
 *
 * The token's digest is part of the key, so each account's terminal has an entry of its own: two customers may
 * connect the same trading login (each with a terminal of their own), and one customer's failed or repeated
 * connect never overwrites or deletes another's entry. A hello's entry is found from what it presents; an unknown
 * token finds none.
 */
export function terminalRegistryKey(platform: string, login: string | number, server: string, tokenSha256: string): string {
  return `${platform}.${String(login)}.${Buffer.from(server.toLowerCase(), 'utf8').toString('base64url')}.${tokenSha256}`;
}

/** The key of an entry. */
export function registryKeyOf(entry: TerminalRegistryEntry): string {
  return terminalRegistryKey(entry.platform, entry.login, entry.server, entry.token_sha256);
}

export function tokenSha256Hex(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeRegistryEntry(entry: TerminalRegistryEntry): Uint8Array {
  return encoder.encode(JSON.stringify(entry));
}

/** The entry, or undefined when the bytes are not one (a foreign write is ignored, never trusted). */
export function decodeRegistryEntry(bytes: Uint8Array): TerminalRegistryEntry | undefined {
  try {
    const value = JSON.parse(decoder.decode(bytes)) as Partial<TerminalRegistryEntry>;
    if (
      typeof value.account_id !== 'string' ||
      (value.platform !== 'mt4' && value.platform !== 'mt5') ||
      typeof value.server !== 'string' ||
      typeof value.login !== 'string' ||
      typeof value.token_sha256 !== 'string' ||
      !/^[0-9a-f]{64}$/.test(value.token_sha256)
    )
      return undefined;
    return value as TerminalRegistryEntry;
  } catch {
    return undefined;
  }
}
