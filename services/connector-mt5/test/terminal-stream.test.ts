import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@mtx/shared/testing';
import { connectorCodecs, terminalSubject, type PlaceReplyMessage } from '@mtx/shared/connector/messages';
import { startExecutionStack, type ExecutionStack } from '../../execution/test/stack';

/**
 * The connectors reach the trade server through long-lived `Terminal` streams shared by the sessions, not a call
 * per leg nor a stream per account.
 */
let stack: ExecutionStack;

beforeAll(async () => {
  stack = await startExecutionStack({
    label: 'termstream',
    connectorEnv: { CONNECTOR_TERMINAL_IDLE_MS: '1500', CONNECTOR_SESSION_IDLE_MS: '1500' },
  });
  await stack.control('/control/prices', 'POST', { frozen_all: true });
});

afterAll(async () => {
  await stack?.close();
});

async function place(accountId: string, server: string, login: string, legs: number, batchId: string): Promise<PlaceReplyMessage> {
  const reply = await stack.nats.request(
    terminalSubject(stack.subjectRoot, 'mt5', accountId, 'place'),
    connectorCodecs.placeRequest.encode({
      account_id: accountId,
      credentials: { server, login, password: 'secret' },
      legs: Array.from({ length: legs }, (_, index) => ({
        client_id: `${batchId}-${index}`,
        leg_index: index,
        symbol: 'EURUSD',
        operation: index % 2 === 0 ? 'buy' : 'sell',
        volume: 0.1,
      })),
      deadline_unix_ms: Date.now() + 5_000,
      batch_id: batchId,
    }),
    { timeout: 5_000 },
  );
  return connectorCodecs.placeReply.decode(reply.data);
}

describe('terminal streams between a connector and the trade server', () => {
  it('sends the legs of every request on one account over the same stream, and recovers from a cut connection', async () => {
    const before = (await stack.control('/control/stats')).body;
    const first = await place('acc_stream1', 'AlphaFX-Live', '9500', 5, `bat_streamA${Date.now()}`);
    const second = await place('acc_stream1', 'AlphaFX-Live', '9500', 5, `bat_streamB${Date.now()}`);
    expect([...first.results, ...second.results].map((result) => result.status)).toEqual(Array.from({ length: 10 }, () => 'filled'));
    const after = (await stack.control('/control/stats')).body;
    // One login, then one stream for the session: ten orders are ten frames on it.
    expect(after.terminal_streams_opened - before.terminal_streams_opened).toBe(1);
    expect(after.terminal_calls - before.terminal_calls).toBe(10);
    expect(after.trade_requests_received - before.trade_requests_received).toBe(10);

    // A network cut: the next request opens a new stream on the same session and trades.
    await stack.control('/control/terminals/disconnect', 'POST', {});
    const third = await place('acc_stream1', 'AlphaFX-Live', '9500', 2, `bat_streamC${Date.now()}`);
    expect(third.results.map((result) => result.status)).toEqual(['filled', 'filled']);
    expect((await stack.control('/control/stats')).body.terminal_streams_opened - after.terminal_streams_opened).toBe(1);
  });

  it('closes a stream left idle past CONNECTOR_TERMINAL_IDLE_MS, and opens a new one on the next call', async () => {
    const first = await place('acc_stream2', 'AlphaFX-Live', '9501', 1, `bat_idleA${Date.now()}`);
    expect(first.results[0]!.status).toBe('filled');
    const opened = (await stack.control('/control/stats')).body;
    expect(opened.terminal_streams_open).toBeGreaterThanOrEqual(1);
    // Idle for longer than the bound (and one sweep): every stream this connector held is closed.
    await eventually(async () => (await stack.control('/control/stats')).body.terminal_streams_open === 0, 10_000, 200);
    const again = await place('acc_stream2', 'AlphaFX-Live', '9501', 1, `bat_idleB${Date.now()}`);
    expect(again.results[0]!.status).toBe('filled');
    const reopened = (await stack.control('/control/stats')).body;
    expect(reopened.terminal_streams_opened - opened.terminal_streams_opened).toBe(1);
    expect(reopened.terminal_streams_open).toBe(1);
  });

  it("carries several accounts' legs over one stream", async () => {
    await eventually(async () => (await stack.control('/control/stats')).body.terminal_streams_open === 0, 10_000, 200);
    const before = (await stack.control('/control/stats')).body;
    const replies = await Promise.all(
      ['9510', '9511', '9512'].map((login, index) =>
        place(`acc_shared${index}`, 'AlphaFX-Live', login, 2, `bat_shared${index}${Date.now()}`),
      ),
    );
    expect(replies.flatMap((reply) => reply.results.map((result) => result.status))).toEqual(Array.from({ length: 6 }, () => 'filled'));
    const after = (await stack.control('/control/stats')).body;
    expect(after.terminal_streams_opened - before.terminal_streams_opened).toBe(1);
    expect(after.terminal_streams_open).toBe(1);
    expect(after.terminal_calls - before.terminal_calls).toBe(6);
  });

  it('logs out a session left idle past CONNECTOR_SESSION_IDLE_MS; the next request logs in again and trades', async () => {
    const first = await place('acc_idlesession', 'AlphaFX-Live', '9520', 1, `bat_sessionA${Date.now()}`);
    expect(first.results[0]!.status).toBe('filled');
    const before = (await stack.control('/control/stats')).body;
    // Every session this connector held goes idle: the sweep logs each out at the trade server.
    await eventually(
      async () => {
        const stats = (await stack.control('/control/stats')).body;
        return stats.sessions_logged_out > before.sessions_logged_out && stats.sessions_open < before.sessions_open;
      },
      10_000,
      200,
    );
    const account = (await stack.control('/control/accounts/AlphaFX-Live/9520')).body;
    expect(account.positions).toHaveLength(1);
    const again = await place('acc_idlesession', 'AlphaFX-Live', '9520', 1, `bat_sessionB${Date.now()}`);
    expect(again.results[0]!.status).toBe('filled');
    expect((await stack.control('/control/accounts/AlphaFX-Live/9520')).body.positions).toHaveLength(2);
  });
});
