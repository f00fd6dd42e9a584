import { createLogger } from '@mtx/shared/logger';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildControlApi, type ControlApi } from '../src/handlers/http';
import { listeningPort } from '@mtx/shared/lifecycle';
import { parseFrame } from '../src/terminal/frames';
import { TerminalFleet } from '../src/terminal/terminal-fleet';
import { useJournalBroker } from './journal-broker';
import { type ScriptedConnection, ScriptedConnector } from './scripted-connector';

/**
 * The per-account terminal switch (src/terminal/terminal-behaviour.ts): a `silent` terminal reads requests and
 * does nothing with them, a `garbage` one sends one malformed line, and the control API switches it, refusing bad
 * input without changing anything.
 */
const logger = createLogger('terminal-behaviour-test', { level: 'silent' });
const token = 'tk_9f3Kq2LmX8vB7nR4tY6wZ1aC5dE0gH2j';
const server = 'AlphaFX-Live';

describe('switching how an emulated terminal answers', () => {
  const fixture = useJournalBroker('terminal-behaviour', logger);
  let fleet: TerminalFleet;
  let connector: ScriptedConnector;
  let control: ControlApi;
  let controlUrl: string;

  beforeAll(async () => {
    connector = new ScriptedConnector();
    await connector.listen();
    fleet = new TerminalFleet(fixture.broker, logger, { backoffInitialMs: 100, backoffMaxMs: 400 });
    control = buildControlApi(fixture.broker, logger, async () => true, {
      stats: () => ({}),
      disconnect: async () => undefined,
      setAnswers: (name, login, answers) => fleet.behaviours.set(name, login, answers),
      answersOf: (name, login) => fleet.behaviours.of(name, login),
      terminalsOf: (name, login) => fleet.terminalsOf(name, login),
    });
    await control.listen({ port: 0, host: '127.0.0.1' });
    controlUrl = `http://127.0.0.1:${listeningPort(control.server)}`;
  });

  afterEach(async () => {
    await fleet.close(200);
  });

  afterAll(async () => {
    await control.close();
    await connector.close();
  });

  const call = async (method: string, pathname: string, body?: unknown) => {
    const response = await fetch(`${controlUrl}${pathname}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as any };
  };

  /** A terminal for a new account, welcomed by the scripted connector with `heartbeatMs`. */
  async function welcomed(login: string, heartbeatMs = 10_000): Promise<ScriptedConnection> {
    await fixture.broker.createAccount({ server, login, password: 'secret', balance: 10_000 });
    fleet.start({ server, login, password: 'secret', addresses: [connector.address], token });
    const connection = await connector.connection();
    expect((await connection.next()).type).toBe('hello');
    connection.welcome(8, heartbeatMs);
    return connection;
  }

  it('silent: requests are read and dropped, no heartbeat goes out, and the EA answers again once normal', async () => {
    const connection = await welcomed('6101', 1000);
    expect((await call('PUT', `/control/accounts/${server}/6101/terminal`, { answers: 'silent' })).body).toMatchObject({
      answers: 'silent',
      terminals: [{ connected: true, connector: connector.address }],
    });
    connection.send('send', { ttl_ms: 5000, action: 1, type: 0, symbol: 'EURUSD', volume: '0.1', comment: 'x~b4x4ouvrv6' });
    connection.send('account');
    // Two heartbeat intervals: neither an answer nor a heartbeat comes, and the connection stays open.
    await expect(connection.next(2_500)).rejects.toThrow('no frame in time');
    expect(connection.closed).toBe(false);
    expect(fixture.broker.requests(server, '6101')).toEqual([]);
    expect(fixture.broker.deals(server, '6101')).toEqual([]);
    expect((await call('DELETE', `/control/accounts/${server}/6101/terminal`)).body.answers).toBe('normal');
    const id = connection.send('account');
    let answer = await connection.next();
    // The EA's heartbeat, overdue while it was frozen, may come first.
    while (answer.type === 'hb') answer = await connection.next();
    expect(answer.fields).toMatchObject({ id: String(id), status: 'ok', login: '6101' });
    expect(fixture.broker.requests(server, '6101')).toEqual([]);
  });

  it('silent mid-trade: the trade in hand completes at the broker unanswered, and a request read before is not carried out', async () => {
    const connection = await welcomed('6104');
    fixture.broker.setFaults(server, '6104', { delay_ms: 300 });
    const trade = { ttl_ms: 5000, action: 1, type: 0, symbol: 'EURUSD', volume: '0.1' };
    connection.send('send', { ...trade, comment: 'first~b4x4ouvrv6' });
    connection.send('send', { ...trade, comment: 'second~b4x4ouvrv7' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fixture.broker.requests(server, '6104').map((record) => record.state)).toEqual(['processing']);
    await call('PUT', `/control/accounts/${server}/6104/terminal`, { answers: 'silent' });
    await expect(connection.next(1_000)).rejects.toThrow('no frame in time');
    expect(fixture.broker.requests(server, '6104').map((record) => record.state)).toEqual(['done']);
    expect(fixture.broker.deals(server, '6104')).toHaveLength(1);
  });

  it('garbage: the next frame is a malformed line, the switch goes back to normal, and the EA trades after redialling', async () => {
    const connection = await welcomed('6102');
    const lines: string[] = [];
    let held = '';
    connection.socket.on('data', (chunk: string) => {
      held += chunk;
      for (let end = held.indexOf('\n'); end >= 0; end = held.indexOf('\n')) {
        lines.push(held.slice(0, end));
        held = held.slice(end + 1);
      }
    });
    await call('PUT', `/control/accounts/${server}/6102/terminal`, { answers: 'garbage' });
    connection.send('account');
    const frame = await connection.next();
    expect(frame.type).toBe('res');
    expect(lines).toHaveLength(1);
    // Malformed by the document's rules, so the connector must close the connection.
    expect(parseFrame(Buffer.from(lines[0]!))).toBeUndefined();
    expect((await call('GET', `/control/accounts/${server}/6102/terminal`)).body.answers).toBe('normal');
    connection.write('error\tcode=malformed\tmessage=frame cannot be parsed');
    connection.socket.end();
    const again = await connector.connection();
    expect((await again.next()).type).toBe('hello');
    again.welcome();
    expect(await again.ask('account')).toMatchObject({ status: 'ok', login: '6102' });
  });

  it('refuses bad input with a 4xx and changes nothing', async () => {
    await welcomed('6103');
    const terminal = `/control/accounts/${server}/6103/terminal`;
    expect((await call('PUT', terminal, { answers: 'silent' })).status).toBe(200);
    const refused = [
      await call('PUT', terminal, { answers: 'loud' }),
      await call('PUT', terminal, {}),
      await call('PUT', terminal, { answers: 'normal', extra: 1 }),
      await call('PUT', terminal, { answers: 7 }),
      await call('PUT', `/control/accounts/${server}/61o3/terminal`, { answers: 'normal' }),
    ];
    expect(refused.map((answer) => answer.status)).toEqual([400, 400, 400, 400, 400]);
    for (const answer of refused) expect(answer.body.error.code).toBe('invalid');
    const unknown = [
      await call('PUT', `/control/accounts/Nowhere-Server/6103/terminal`, { answers: 'normal' }),
      await call('PUT', `/control/accounts/${server}/6199/terminal`, { answers: 'normal' }),
      await call('DELETE', `/control/accounts/${server}/6199/terminal`),
    ];
    expect(unknown.map((answer) => answer.status)).toEqual([404, 404, 404]);
    expect((await call('GET', terminal)).body).toMatchObject({
      server,
      login: '6103',
      answers: 'silent',
      terminals: [{ connected: true }],
    });
    expect(fleet.behaviours.of(server, '6199')).toBe('normal');
  });
});
