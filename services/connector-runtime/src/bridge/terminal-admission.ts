import { createHash, timingSafeEqual } from 'node:crypto';
import { type HelloFrame, type Platform, protocolVersion, type RefuseReason } from './frames';

/**
 * Whether a terminal's `hello` may open a session (docs/terminal-bridge.md, "Versioning" and "Security"): a
 * version both sides speak, a token whose SHA-256 equals the stored digest (compared in constant time), and a
 * login and server that are the account's registered ones. The token itself is never kept nor logged.
 */

/** Versions this connector speaks, highest first: v2 is v1 with `send_batch`. */
export const connectorVersions: readonly number[] = [2, protocolVersion];

/** What the operator registered for one terminal: the account it trades and the SHA-256 of its token. */
export interface TerminalRegistration {
  accountId: string;
  /** SHA-256 of the terminal's token (32 bytes); the token itself is never stored. */
  tokenDigest: Uint8Array;
  /**
   * The account's registered trade login (as text, compared with the hello's login written in decimal) and
   * server (compared case-insensitively: terminals and users write server names in either case); a terminal
   * logged in elsewhere is refused.
   */
  login: string;
  server: string;
}

/** The caller's port to its registered terminals (an account store, a settings file). */
export interface TerminalDirectory {
  /** The registration of the account this platform, login and server belong to, or null when none is. */
  /**
   * The registration of the terminal with this platform, login, server and token digest (SHA-256 of the token),
   * or null when none is: an unknown token finds nothing.
   */
  lookup(identity: { platform: Platform; login: number; server: string; tokenDigest: Uint8Array }): Promise<TerminalRegistration | null>;
}

export type Admission =
  | { admitted: true; version: number; registration: TerminalRegistration }
  | { admitted: false; reason: RefuseReason; message: string };

/** SHA-256 of a token's UTF-8 bytes: what a directory stores. */
export function tokenDigest(token: string): Uint8Array {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** The highest version both sides speak, or undefined when there is none. */
export function negotiatedVersion(offered: readonly number[]): number | undefined {
  return connectorVersions.find((version) => offered.includes(version));
}

/** Decides a hello. A directory failure or a lookup past `lookupDeadlineMs` is `unavailable`, never a guess. */
export async function admit(hello: HelloFrame, directory: TerminalDirectory, lookupDeadlineMs: number): Promise<Admission> {
  const version = negotiatedVersion(hello.versions);
  if (version === undefined)
    return { admitted: false, reason: 'version', message: `versions ${hello.versions.join(',')} are not spoken here` };
  const presented = tokenDigest(hello.token);
  let registration: TerminalRegistration | null;
  try {
    registration = await withDeadline(
      directory.lookup({ platform: hello.platform, login: hello.login, server: hello.server, tokenDigest: presented }),
      lookupDeadlineMs,
    );
  } catch {
    return { admitted: false, reason: 'unavailable', message: 'the terminal directory did not answer' };
  }
  // A directory keyed by the token's digest finds nothing for a token it does not know.
  if (!registration) return { admitted: false, reason: 'bad_token', message: 'token not accepted' };
  // The digest of the presented token against the stored one: equal lengths by construction, compared in
  // constant time so the answer's timing says nothing about how much of a guess was right.
  const stored = registration.tokenDigest;
  if (stored.length !== presented.length || !timingSafeEqual(presented, stored))
    return { admitted: false, reason: 'bad_token', message: 'token not accepted' };
  if (registration.login !== String(hello.login) || registration.server.toLowerCase() !== hello.server.toLowerCase())
    return { admitted: false, reason: 'unknown_login', message: `login ${hello.login} is not the account's registered login` };
  return { admitted: true, version, registration };
}

function withDeadline<T>(promise: Promise<T>, deadlineMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${deadlineMs} ms`)), deadlineMs);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
