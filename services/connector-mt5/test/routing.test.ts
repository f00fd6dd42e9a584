import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorApp } from '@mtx/connector-runtime/app';
import { type BridgeStack, connectorCodecs, eventually, newToken, startBridgeStack } from './bridge-stack';

/** Requests reach the replica that holds the account's terminal, and nothing reaches an account without one. */
let stack: BridgeStack;
let first: ConnectorApp;
let second: ConnectorApp;
const server = 'AlphaFX-Live';

beforeAll(async () => {
  stack = await startBridgeStack('route');
  first = await stack.connector('mt5');
  second = await stack.connector('mt5');
});

afterAll(async () => {
  await stack?.close();
});

async function ping(accountId: string): Promise<{ connected: boolean } | 'no responders'> {
  try {
    const data = await stack.request('mt5', accountId, 'ping', connectorCodecs.pingRequest.encode({ account_id: accountId }), 3_000);
    return connectorCodecs.pingReply.decode(data);
  } catch (error) {
    if ((error as { code?: string }).code === '503') return 'no responders';
    throw error;
  }
}

describe('per-account routing', () => {
  it('answers "no responders" at once for an account with no terminal attached', async () => {
    const startedMs = Date.now();
    expect(await ping('acc_nobody')).toBe('no responders');
    expect(Date.now() - startedMs).toBeLessThan(1_000);
  });

  it('refuses a terminal with a wrong token, and routes nothing for its account', async () => {
    await stack.register('mt5', 'acc_wrong', server, '8301', newToken());
    const link = stack.terminal(server, '8301', newToken(), [first]);
    await eventually('a refusal', () => link.stats.refusals.length > 0);
    expect(link.stats.refusals[0]).toContain('bad_token');
    expect(link.stats.welcomes).toBe(0);
    expect(await ping('acc_wrong')).toBe('no responders');
  });

  it('reaches the replica holding the terminal, and follows the terminal to the other replica', async () => {
    const token = newToken();
    await stack.register('mt5', 'acc_moving', server, '8302', token);
    const link = stack.terminal(server, '8302', token, [first, second]);
    await eventually('the terminal attached to the first replica', () => link.stats.connected && first.runtime.routedAccounts > 0);
    expect(second.runtime.routedAccounts).toBe(0);
    for (let attempt = 0; attempt < 5; attempt++) expect(await ping('acc_moving')).toMatchObject({ connected: true });
    // The first replica stops: the terminal's connection drops and it dials the next address.
    await first.stop(500);
    await eventually('the terminal attached to the second replica', () => second.runtime.routedAccounts > 0 && link.stats.connected);
    expect(link.stats.welcomes).toBe(2);
    expect(await ping('acc_moving')).toMatchObject({ connected: true });
  });
});
