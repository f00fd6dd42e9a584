import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BrokerCallError, type BrokerClient, SessionPool, TerminalLoginError } from '../src/broker-client';

/**
 * The session pool against a scripted trade server (a pure unit test: the pool's bookkeeping, not the wire; the
 * wire is covered by connector-mt5's terminal-stream test against broker-sim).
 */
class ScriptedServer {
  logins: string[] = [];
  logouts: string[] = [];
  private nextSession = 1;
  refuse = new Set<string>();

  asClient(): BrokerClient {
    return {
      call: async (method: string, request: { login?: string; password?: string; session_id?: string }) => {
        if (method === 'Logout') {
          this.logouts.push(request.session_id!);
          return { logged_out: true };
        }
        if (method !== 'Login') throw new Error(`unexpected call ${method}`);
        this.logins.push(`${request.login}/${request.password}`);
        await new Promise((resolve) => setTimeout(resolve, 1));
        if (this.refuse.has(request.login!)) throw new BrokerCallError(16, 'invalid account or password');
        return {
          session_id: `session-${this.nextSession++}`,
          server: { name: 'AlphaFX-Live', platform: 'mt5', broker: 'Alpha', symbol_suffix: '', margin_mode: 'hedging', symbols: [] },
          margin_mode: 'hedging',
        };
      },
    } as unknown as BrokerClient;
  }
}

const credentials = (login: string, password = 'secret') => ({ server: 'AlphaFX-Live', login, password });

describe('SessionPool', () => {
  let server: ScriptedServer;

  beforeEach(() => {
    server = new ScriptedServer();
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('logs in once for concurrent first uses, and again only when the password changes (logging the old one out)', async () => {
    const pool = new SessionPool(server.asClient(), 'mt5', { sessionsMax: 10, loginDeadlineMs: 1_000 });
    const sessions = await Promise.all(Array.from({ length: 5 }, () => pool.get('acc_1', credentials('100'))));
    expect(new Set(sessions.map((session) => session.sessionId)).size).toBe(1);
    expect(server.logins).toEqual(['100/secret']);
    const changed = await pool.get('acc_1', credentials('100', 'new-secret'));
    expect(changed.sessionId).not.toBe(sessions[0]!.sessionId);
    expect(server.logins).toEqual(['100/secret', '100/new-secret']);
    expect(server.logouts).toEqual([sessions[0]!.sessionId]);
    pool.close();
  });

  it('forgets a refused login, so the next use tries again', async () => {
    const pool = new SessionPool(server.asClient(), 'mt5', { sessionsMax: 10, loginDeadlineMs: 1_000 });
    server.refuse.add('200');
    await expect(pool.get('acc_2', credentials('200'))).rejects.toBeInstanceOf(TerminalLoginError);
    expect(pool.size).toBe(0);
    server.refuse.delete('200');
    await pool.get('acc_2', credentials('200'));
    expect(server.logins).toEqual(['200/secret', '200/secret']);
    pool.close();
  });

  it('past the bound, logs out the least recently used sessions, not the ones in use', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const pool = new SessionPool(server.asClient(), 'mt5', { sessionsMax: 3, loginDeadlineMs: 1_000 });
    const first = await pool.get('acc_a', credentials('1'));
    vi.setSystemTime(Date.now() + 1_000);
    const second = await pool.get('acc_b', credentials('2'));
    vi.setSystemTime(Date.now() + 1_000);
    await pool.get('acc_c', credentials('3'));
    vi.setSystemTime(Date.now() + 1_000);
    // acc_a used again: now acc_b is the least recently used.
    expect((await pool.get('acc_a', credentials('1'))).sessionId).toBe(first.sessionId);
    vi.setSystemTime(Date.now() + 1_000);
    await pool.get('acc_d', credentials('4'));
    expect(pool.size).toBe(3);
    expect(server.logouts).toEqual([second.sessionId]);
    expect((await pool.get('acc_a', credentials('1'))).sessionId).toBe(first.sessionId);
    expect(server.logins).toHaveLength(4);
    pool.close();
  });

  it('logs out the sessions left idle past the bound; the next use logs in again', async () => {
    vi.useFakeTimers();
    const pool = new SessionPool(server.asClient(), 'mt5', { sessionsMax: 10, loginDeadlineMs: 1_000, sessionIdleMs: 60_000 });
    const idle = pool.get('acc_idle', credentials('5'));
    const busy = pool.get('acc_busy', credentials('6'));
    await vi.advanceTimersByTimeAsync(5);
    const [idleSession, busySession] = await Promise.all([idle, busy]);
    for (let second = 0; second < 90; second += 10) {
      await vi.advanceTimersByTimeAsync(10_000);
      await pool.get('acc_busy', credentials('6'));
    }
    expect(server.logouts).toEqual([idleSession.sessionId]);
    expect(pool.loggedOutIdle).toBe(1);
    const again = pool.get('acc_idle', credentials('5'));
    await vi.advanceTimersByTimeAsync(5);
    expect((await again).sessionId).not.toBe(idleSession.sessionId);
    expect((await pool.get('acc_busy', credentials('6'))).sessionId).toBe(busySession.sessionId);
    pool.close();
  });
});
