import { createLogger } from '@mtx/shared/logger';
import { afterEach, describe, expect, it } from 'vitest';
import { TerminalFleet } from '../src/terminal/terminal-fleet';
import { useJournalBroker } from './journal-broker';
import { ScriptedConnector } from './scripted-connector';

/**
 * The emulated EA's `send_batch` (protocol v2, docs/terminal-bridge.md) against a scripted connector over a real
 * socket: the items carried out one at a time in order and answered in one frame, an item the EA refuses answered
 * as its own error while the others trade, a frame whose `ttl_ms` passed before it started refused whole, and the
 * command unknown to a connection that agreed v1.
 */

const logger = createLogger('terminal-send-batch-test', { level: 'silent' });
const token = 'tk_9f3Kq2LmX8vB7nR4tY6wZ1aC5dE0gH2j';

describe('emulated terminal: send_batch', () => {
  const fixture = useJournalBroker('terminal-send-batch', logger);
  let fleet: TerminalFleet;
  let connector: ScriptedConnector;

  afterEach(async () => {
    await fleet?.close(500);
    await connector?.close();
  });

  async function welcomed(login: string, version: number) {
    connector = new ScriptedConnector();
    await connector.listen();
    fleet = new TerminalFleet(fixture.broker, logger, { backoffInitialMs: 100, backoffMaxMs: 400 });
    fleet.start({ server: 'AlphaFX-Live', login, password: 'secret', addresses: [connector.address], token });
    const connection = await connector.connection();
    const hello = await connection.next();
    expect(hello.fields.v).toBe('2,1');
    connection.welcome(8, 10_000, version);
    return connection;
  }

  it('carries out the items in order and answers each in one frame', async () => {
    const connection = await welcomed('5101', 2);
    const answer = await connection.ask('send_batch', {
      ttl_ms: 5000,
      legs: 3,
      'legs.0.action': 1,
      'legs.0.type': 0,
      'legs.0.symbol': 'EURUSD',
      'legs.0.volume': '0.1',
      'legs.1.action': 1,
      'legs.1.type': 0,
      'legs.1.symbol': 'NOSUCH',
      'legs.1.volume': '0.2',
      'legs.2.action': 1,
      'legs.2.type': 1,
      'legs.2.symbol': 'EURUSD',
      'legs.2.volume': '0.3',
    });
    expect(answer).toMatchObject({
      status: 'ok',
      results: '3',
      'results.0.status': 'ok',
      'results.0.retcode': '10009',
      'results.1.status': 'error',
      'results.1.error': 'bad_request',
      'results.2.status': 'ok',
      'results.2.retcode': '10009',
    });
    // In order: the first item's position has the lower ticket.
    expect(Number(answer['results.0.order'])).toBeLessThan(Number(answer['results.2.order']));
    const positions = await connection.ask('positions');
    expect(positions).toMatchObject({ positions: '2', 'positions.0.volume': '0.1', 'positions.1.volume': '0.3' });
    expect(fixture.broker.accountSnapshot('AlphaFX-Live', '5101').trade_requests_received).toBe(2);
  });

  it('refuses a frame whose ttl_ms passed before it started, and items it cannot read, with nothing sent', async () => {
    const connection = await welcomed('5102', 2);
    fixture.broker.setFaults('AlphaFX-Live', '5102', { delay_ms: 300, remaining: 1 });
    connection.send('send', { ttl_ms: 5000, action: 1, type: 0, symbol: 'EURUSD', volume: '0.1' });
    connection.send('send_batch', { ttl_ms: 100, legs: 2, 'legs.0.action': 1, 'legs.0.symbol': 'EURUSD', 'legs.1.action': 1 });
    expect((await connection.next()).fields.retcode).toBe('10009');
    expect((await connection.next()).fields).toMatchObject({ status: 'error', error: 'expired' });
    expect(await connection.ask('send_batch', { ttl_ms: 5000, legs: 1, 'legs.1.action': 1 })).toMatchObject({
      status: 'error',
      error: 'bad_request',
    });
    expect(await connection.ask('send_batch', { ttl_ms: 5000, legs: 65 })).toMatchObject({ status: 'error', error: 'bad_request' });
    expect(fixture.broker.accountSnapshot('AlphaFX-Live', '5102').trade_requests_received).toBe(1);
  });

  it('answers send_batch unsupported on a connection that agreed v1', async () => {
    const connection = await welcomed('5103', 1);
    const answer = await connection.ask('send_batch', { ttl_ms: 5000, legs: 1, 'legs.0.action': 1, 'legs.0.symbol': 'EURUSD' });
    expect(answer).toMatchObject({ status: 'error', error: 'unsupported' });
    expect(fixture.broker.accountSnapshot('AlphaFX-Live', '5103').trade_requests_received).toBe(0);
  });
});
