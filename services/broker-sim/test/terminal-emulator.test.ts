import { createLogger } from '@mtx/shared/logger';
import { selfSignedCertificate } from '@mtx/shared/testing';
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeFrame, FrameReader, formatDecimal, formatPrice, parseFrame, parseInteger } from '../src/terminal/frames';
import { TerminalFleet } from '../src/terminal/terminal-fleet';
import { useJournalBroker } from './journal-broker';
import { type Received, ScriptedConnector } from './scripted-connector';

const logger = createLogger('terminal-emulator-test', { level: 'silent' });
const token = 'tk_9f3Kq2LmX8vB7nR4tY6wZ1aC5dE0gH2j';
const tag = '~b4x4ouvrv6';

describe('emulated terminal (bridge protocol v1)', () => {
  const fixture = useJournalBroker('terminal-emulator', logger);
  let fleet: TerminalFleet;
  let connector: ScriptedConnector;

  afterEach(async () => {
    await fleet?.close(500);
    await connector?.close();
  });

  async function started(server: string, login: string, addresses?: string[]) {
    connector = new ScriptedConnector();
    await connector.listen();
    fleet = new TerminalFleet(fixture.broker, logger, { backoffInitialMs: 100, backoffMaxMs: 400 });
    const link = fleet.start({ server, login, password: 'secret', addresses: addresses ?? [connector.address], token });
    const connection = await connector.connection();
    return { link, connection };
  }

  it('says hello as the MT5 EA, then trades: buy, modify, partial close, close, pending, history, find', async () => {
    const { connection } = await started('AlphaFX-Live', '5001234');
    const hello = await connection.next();
    expect(hello.type).toBe('hello');
    expect(hello.fields).toMatchObject({ v: '2,1', platform: 'mt5', login: '5001234', server: 'AlphaFX-Live', ea: '1.0.0', token });
    expect(Number(hello.fields.build)).toBeGreaterThan(0);
    expect(Math.abs(Number(hello.fields.server_time) - Date.now() / 1000)).toBeLessThan(5);
    expect(Number(hello.fields.gmt_time)).toBeGreaterThan(0);
    connection.welcome();

    const account = await connection.ask('account');
    expect(account).toMatchObject({ status: 'ok', login: '5001234', server: 'AlphaFX-Live', currency: 'USD', margin_mode: 'hedging' });
    expect(account.balance).toBe('10000');
    const symbol = await connection.ask('symbol', { symbol: 'EURUSD' });
    expect(symbol).toMatchObject({ status: 'ok', symbol: 'EURUSD', digits: '5', volume_min: '0.01' });
    expect(Number(symbol.ask)).toBeGreaterThan(Number(symbol.bid));
    expect((await connection.ask('symbol', { symbol: 'NOPE' })).error).toBe('bad_request');

    const buy = await connection.ask('send', {
      ttl_ms: 5000,
      action: 1,
      type: 0,
      symbol: 'EURUSD',
      volume: '0.10',
      magic: 77,
      comment: `hedge leg A${tag}`,
    });
    expect(buy).toMatchObject({ status: 'ok', retcode: '10009', volume: '0.1', retcode_external: '0' });
    expect(buy.price).toBe(symbol.ask);
    const positions = await connection.ask('positions');
    expect(positions).toMatchObject({ positions: '1', more: '0', 'positions.0.type': '0', 'positions.0.comment': `hedge leg A${tag}` });
    const ticket = positions['positions.0.ticket']!;
    expect(positions['positions.0.identifier']).toBe(ticket);

    const stopLoss = (Number(symbol.bid) - 0.005).toFixed(5);
    const modified = await connection.ask('modify', { ttl_ms: 5000, ticket, sl: stopLoss });
    expect(modified.retcode).toBe('10009');
    expect((await connection.ask('ticket', { ticket })).sl).toBe(stopLoss);
    expect((await connection.ask('modify', { ttl_ms: 5000, ticket, sl: stopLoss })).retcode).toBe('10025');

    const partial = await connection.ask('close', { ttl_ms: 5000, ticket, volume: '0.04' });
    expect(partial).toMatchObject({ retcode: '10009', volume: '0.04' });
    expect((await connection.ask('ticket', { ticket })).volume).toBe('0.06');
    const closed = await connection.ask('close', { ttl_ms: 5000, ticket });
    expect(closed).toMatchObject({ retcode: '10009', volume: '0.06' });
    expect((await connection.ask('positions')).positions).toBe('0');
    expect((await connection.ask('close', { ttl_ms: 5000, ticket })).error).toBe('not_found');

    const limitPrice = (Number(symbol.ask) - 0.01).toFixed(5);
    const placed = await connection.ask('send', { ttl_ms: 5000, action: 5, type: 2, symbol: 'EURUSD', volume: '0.2', price: limitPrice });
    expect(placed.retcode).toBe('10008');
    const orders = await connection.ask('orders');
    expect(orders).toMatchObject({ orders: '1', 'orders.0.ticket': placed.order, 'orders.0.type': '2', 'orders.0.price_open': limitPrice });
    expect((await connection.ask('delete', { ttl_ms: 5000, ticket: placed.order! })).retcode).toBe('10009');
    expect((await connection.ask('orders')).orders).toBe('0');

    const now = Math.floor(Date.now() / 1000);
    const deals = await connection.ask('history', { kind: 'deals', from: now - 60, to: now + 60 });
    expect(deals).toMatchObject({
      deals: '3',
      total: '3',
      more: '0',
      'deals.0.entry': '0',
      'deals.1.entry': '1',
      'deals.2.volume': '0.06',
    });
    expect(deals['deals.0.comment']).toBe(`hedge leg A${tag}`);
    expect([deals['deals.0.magic'], deals['deals.1.magic']]).toEqual(['77', '77']);
    const paged = await connection.ask('history', { kind: 'deals', from: now - 60, to: now + 60, limit: 2 });
    expect(paged).toMatchObject({ deals: '2', total: '3', more: '1' });
    const historyOrders = await connection.ask('history', { kind: 'orders', from: now - 60, to: now + 60 });
    expect(historyOrders.total).toBe('4');

    const found = await connection.ask('find', { tags: `${tag},~aaaaaaaaaa`, from: now - 60 });
    expect(found).toMatchObject({ matches: '2', more: '0', 'matches.0.tag': tag, 'matches.0.magic': '77' });
    const places = Object.entries(found)
      .filter(([key]) => key.endsWith('.where'))
      .map(([, value]) => value);
    expect(places).toContain('deal');
    expect(places).toContain('history_order');
    expect((await connection.ask('find', { tags: 'not-a-tag', from: 0 })).error).toBe('bad_request');
    expect((await connection.ask('quote', { symbol: 'EURUSD' })).error).toBe('unsupported');
    expect((await connection.ask('send', { action: 1 })).error).toBe('bad_request');
  });

  it('passes MT4 error numbers through raw and re-tickets a partial close as MT4 does', async () => {
    const { connection } = await started('OmegaCapital-Demo', '7001');
    expect((await connection.next()).fields.platform).toBe('mt4');
    connection.welcome();
    // MT4's OrderSend order type travels as `op` (`cmd` names the request's command).
    const sent = await connection.ask('send', { ttl_ms: 5000, symbol: 'EURUSD', op: 0, volume: '0.3', comment: `mt4 leg${tag}` });
    expect(sent).toMatchObject({ status: 'ok', error: '0' });
    const opened = { ticket: Number(sent.ticket) };
    expect(opened.ticket).toBeGreaterThan(0);
    // An MT4 error comes back raw from OrderSend too: the connector maps it, not the EA.
    expect(await connection.ask('send', { ttl_ms: 5000, symbol: 'EURUSD', op: 0, volume: '0.001' })).toMatchObject({
      status: 'ok',
      error: '131',
      ticket: '-1',
    });
    const ticket = String(opened.ticket);
    expect(await connection.ask('close', { ttl_ms: 5000, ticket, volume: '0.001' })).toMatchObject({
      status: 'ok',
      error: '131',
      ticket,
    });
    fixture.broker.setFaults('OmegaCapital-Demo', '7001', { reject_code: 146, remaining: 1 });
    expect(await connection.ask('close', { ttl_ms: 5000, ticket, volume: '0.1' })).toMatchObject({
      status: 'ok',
      error: '146',
      ticket,
    });

    const partial = await connection.ask('close', { ttl_ms: 5000, ticket, volume: '0.1' });
    expect(partial).toMatchObject({ error: '0', ticket, volume: '0.1' });
    expect(Number(partial.new_ticket)).toBeGreaterThan(opened.ticket);
    const positions = await connection.ask('positions');
    expect(positions).toMatchObject({ positions: '1', 'positions.0.ticket': partial.new_ticket, 'positions.0.volume': '0.2' });
    expect(positions['positions.0.comment']).toBe(`from #${ticket}`);

    const now = Math.floor(Date.now() / 1000);
    expect((await connection.ask('history', { kind: 'deals', from: 0, to: now + 60 })).error).toBe('bad_request');
    const history = await connection.ask('history', { kind: 'orders', from: now - 60, to: now + 60 });
    expect(history).toMatchObject({ orders: '1', 'orders.0.ticket': ticket, 'orders.0.volume': '0.1', 'orders.0.type': '0' });
    // The order was sent through the EA with the connector's tag in its comment, so lookup by tag finds it.
    expect((await connection.ask('find', { tags: tag, from: now - 60 })).matches).toBe('1');
  });

  it('backs off after a refusal and dials the next address', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const port = (probe.address() as net.AddressInfo).port;
        probe.close(() => resolve(port));
      });
    });
    connector = new ScriptedConnector();
    await connector.listen();
    fleet = new TerminalFleet(fixture.broker, logger, { backoffInitialMs: 100, backoffMaxMs: 400 });
    const startedAt = Date.now();
    const link = fleet.start({
      server: 'AlphaFX-Live',
      login: '5002',
      password: 'secret',
      addresses: [`127.0.0.1:${closedPort}`, connector.address],
      token,
    });
    const first = await connector.connection();
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(50);
    expect((await first.next()).type).toBe('hello');
    first.write('refuse\treason=bad_token\tmessage=token not accepted\tv=1');
    expect(await first.closedWithin(2000)).toBe(true);
    const second = await connector.connection();
    expect((await second.next()).type).toBe('hello');
    expect(link.stats.refusals).toEqual(['bad_token']);
    expect(link.stats.dials).toBeGreaterThanOrEqual(3);
    second.welcome();
    expect((await second.ask('account')).login).toBe('5002');
  });

  it('sends heartbeats with the server time after hb_ms of silence', async () => {
    const { connection } = await started('AlphaFX-Live', '5003');
    await connection.next();
    connection.welcome(8, 1000);
    const heartbeat = await connection.next(3000);
    expect(heartbeat.type).toBe('hb');
    expect(Math.abs(Number(heartbeat.fields.server_time) - Date.now() / 1000)).toBeLessThan(5);
  });

  it('answers busy past max_inflight while a trade is in hand', async () => {
    const { connection } = await started('AlphaFX-Live', '5004');
    await connection.next();
    connection.welcome(1);
    fixture.broker.setFaults('AlphaFX-Live', '5004', { delay_ms: 300, remaining: 1 });
    const slow = connection.send('send', { ttl_ms: 5000, action: 1, type: 0, symbol: 'EURUSD', volume: '0.1' });
    const extra = connection.send('account');
    const answers = [await connection.next(), await connection.next()];
    const byId = new Map(answers.map((answer) => [answer.fields.id, answer.fields]));
    expect(byId.get(String(extra))).toMatchObject({ status: 'error', error: 'busy' });
    expect(byId.get(String(slow))).toMatchObject({ status: 'ok', retcode: '10009' });
    expect((await connection.ask('positions')).positions).toBe('1');
  });

  it('closes with error code=malformed on a frame it cannot parse, and on a duplicate id', async () => {
    const { connection } = await started('AlphaFX-Live', '5005');
    await connection.next();
    connection.welcome();
    connection.write('req\tid=1\tcmd=account\tbroken');
    const error = await connection.next();
    expect(error).toMatchObject({ type: 'error', fields: { code: 'malformed' } });
    expect(await connection.closedWithin(2000)).toBe(true);

    const again = await connector.connection();
    await again.next();
    again.welcome();
    expect((await again.ask('account')).status).toBe('ok');
    again.write('req\tid=1\tcmd=account');
    expect(await again.next()).toMatchObject({ type: 'error', fields: { code: 'duplicate_id' } });
    expect(await again.closedWithin(2000)).toBe(true);
  });
  it('answers a request before welcome, or a welcome in a version it did not offer, with unexpected_frame', async () => {
    const { connection } = await started('AlphaFX-Live', '5015');
    await connection.next();
    connection.write('req\tid=1\tcmd=account');
    expect(await connection.next()).toMatchObject({ type: 'error', fields: { code: 'unexpected_frame' } });
    expect(await connection.closedWithin(2000)).toBe(true);

    const again = await connector.connection();
    await again.next();
    again.write('welcome\tv=3\tconnection=c-v3\tmax_inflight=8\thb_ms=10000\tidle_ms=30000');
    expect(await again.next()).toMatchObject({ type: 'error', fields: { code: 'unexpected_frame' } });
    expect(await again.closedWithin(2000)).toBe(true);
  });

  it('refuses a trade whose ttl_ms passed while it waited, and sends nothing for it', async () => {
    const { connection } = await started('AlphaFX-Live', '5006');
    await connection.next();
    connection.welcome();
    fixture.broker.setFaults('AlphaFX-Live', '5006', { delay_ms: 300, remaining: 1 });
    connection.send('send', { ttl_ms: 5000, action: 1, type: 0, symbol: 'EURUSD', volume: '0.1' });
    connection.send('send', { ttl_ms: 100, action: 1, type: 0, symbol: 'EURUSD', volume: '0.2' });
    expect((await connection.next()).fields.retcode).toBe('10009');
    expect((await connection.next()).fields).toMatchObject({ status: 'error', error: 'expired' });
    const positions = await connection.ask('positions');
    expect(positions).toMatchObject({ positions: '1', 'positions.0.volume': '0.1' });
    expect(fixture.broker.accountSnapshot('AlphaFX-Live', '5006').trade_requests_received).toBe(1);
  });

  it('closes with frame_too_large once a frame reaches the bound without an LF', async () => {
    const { connection } = await started('AlphaFX-Live', '5007');
    await connection.next();
    connection.welcome();
    connection.socket.write(`req\tid=1\tcmd=account\tpad=${'x'.repeat(1_048_576)}`);
    expect(await connection.next()).toMatchObject({ type: 'error', fields: { code: 'frame_too_large' } });
    expect(await connection.closedWithin(2000)).toBe(true);
  });

  it('says bye reason=idle when the connector stays silent for idle_ms', async () => {
    const { connection } = await started('AlphaFX-Live', '5008');
    await connection.next();
    connection.write('welcome\tv=1\tconnection=c-idle\tmax_inflight=8\thb_ms=1000\tidle_ms=3000');
    let frame = await connection.next(5000);
    while (frame.type === 'hb') frame = await connection.next(5000);
    expect(frame).toMatchObject({ type: 'bye', fields: { reason: 'idle' } });
    expect(await connection.closedWithin(2000)).toBe(true);
  });

  it('says bye reason=deinit when the fleet closes', async () => {
    const { connection } = await started('AlphaFX-Live', '5009');
    await connection.next();
    connection.welcome();
    expect((await connection.ask('account')).status).toBe('ok');
    await fleet.close(500);
    expect(await connection.next()).toMatchObject({ type: 'bye', fields: { reason: 'deinit' } });
    expect(await connection.closedWithin(2000)).toBe(true);
  });

  it('dials over TLS with a CA or a pinned fingerprint, and never in plain TCP beyond loopback', async () => {
    const { key, cert } = selfSignedCertificate(fixture.directory);
    const secure = { key, cert };
    connector = new ScriptedConnector(secure);
    await connector.listen();
    fleet = new TerminalFleet(fixture.broker, logger, { backoffInitialMs: 100, backoffMaxMs: 200 });
    fleet.start({
      server: 'AlphaFX-Live',
      login: '5010',
      password: 'secret',
      addresses: [connector.address],
      token,
      tls: { ca: secure.cert },
    });
    const trusted = await connector.connection();
    expect((await trusted.next()).fields.login).toBe('5010');

    const wrongPin = fleet.start({
      server: 'AlphaFX-Live',
      login: '5011',
      password: 'secret',
      addresses: [connector.address],
      token,
      tls: { fingerprint256: Array.from({ length: 32 }, () => 'AB').join(':') },
    });
    const rightPin = fleet.start({
      server: 'AlphaFX-Live',
      login: '5012',
      password: 'secret',
      addresses: [connector.address],
      token,
      tls: { fingerprint256: new X509Certificate(secure.cert).fingerprint256 },
    });
    // The wrongly pinned terminal's connections end before their hello; the first hello is the rightly pinned one's.
    let hello: Received | undefined;
    while (!hello) hello = await (await connector.connection()).next(1000).catch(() => undefined);
    expect(hello.fields.login).toBe('5012');
    expect(rightPin.stats.dials).toBeGreaterThanOrEqual(1);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(wrongPin.stats.dials).toBeGreaterThanOrEqual(2);
    expect(wrongPin.stats.welcomes).toBe(0);

    const plain = fleet.start({ server: 'AlphaFX-Live', login: '5013', password: 'secret', addresses: ['192.0.2.1:7450'], token });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(plain.stats.dials).toBe(0);
  });
  it('answers internal, sending nothing, while the trade server is unreachable, and trades again once it is back', async () => {
    const { connection } = await started('AlphaFX-Live', '5014');
    await connection.next();
    connection.welcome();
    fixture.broker.setFaults('AlphaFX-Live', '5014', { disconnect: true });
    const refused = await connection.ask('send', { ttl_ms: 5000, action: 1, type: 0, symbol: 'EURUSD', volume: '0.1' });
    expect(refused).toMatchObject({ status: 'error', error: 'internal' });
    expect(fixture.broker.accountSnapshot('AlphaFX-Live', '5014').trade_requests_received).toBe(0);
    fixture.broker.setFaults('AlphaFX-Live', '5014', {});
    expect((await connection.ask('send', { ttl_ms: 5000, action: 1, type: 0, symbol: 'EURUSD', volume: '0.1' })).retcode).toBe('10009');
  });
});

describe('the emulated EA frame codec (docs/terminal-bridge.md, "Wire format")', () => {
  const document = fs.readFileSync(path.join(__dirname, '../../../docs/terminal-bridge.md'), 'utf8');
  const examples = [...document.matchAll(/```bridge-(?:ea|connector)\n([\s\S]*?)```/g)].flatMap((block) =>
    block[1]!.split('\n').filter((line) => line !== ''),
  );

  it('reads every example frame of the document and writes it back byte for byte', () => {
    expect(examples.length).toBeGreaterThan(10);
    for (const line of examples) {
      const frame = parseFrame(Buffer.from(line, 'utf8'));
      expect(frame, line).toBeDefined();
      expect(encodeFrame(frame!.type, frame!.fields)).toBe(`${line}\n`);
    }
    const escaped = examples.find((line) => line.includes('50%25'))!;
    expect(parseFrame(Buffer.from(escaped))!.fields.get('comment')).toBe(`50% off\tx${tag}`);
  });

  it('decodes escapes left to right and refuses what the document calls malformed', () => {
    expect(parseFrame(Buffer.from('res\tmessage=%2509%0a'))!.fields.get('message')).toBe('%09\n');
    for (const bad of ['', 'Res', 'res\tid', 'res\tid=1\tid=2', 'res\tmessage=%G1', 'res\tmessage=50%', 'res\tBad=1', 'res\tmessage=a\rb'])
      expect(parseFrame(Buffer.from(bad)), bad).toBeUndefined();
    expect(parseFrame(Buffer.from([0x72, 0x65, 0x73, 0x09, 0x6d, 0x3d, 0xff]))).toBeUndefined();
  });

  it('hands out frames as their LF arrives and reports a bound reached without one', () => {
    const reader = new FrameReader(64);
    expect(reader.push(Buffer.from('hb\tutc_ms=1\nbye\treason='))).toEqual([{ frame: { type: 'hb', fields: new Map([['utc_ms', '1']]) } }]);
    expect(reader.push(Buffer.from('shutdown\n'))).toEqual([{ frame: { type: 'bye', fields: new Map([['reason', 'shutdown']]) } }]);
    expect(reader.push(Buffer.alloc(64, 0x61))).toEqual([{ tooLarge: true }]);
  });

  it('writes numbers as the reference EAs do', () => {
    expect([formatDecimal(0.1), formatDecimal(10_000), formatDecimal(-0.3), formatDecimal(12.5)]).toEqual(['0.1', '10000', '-0.3', '12.5']);
    expect(formatPrice(1.0845, 5)).toBe('1.08450');
    expect([parseInteger('12'), parseInteger('1.5'), parseInteger('9007199254740993')]).toEqual([12, undefined, undefined]);
  });
});
