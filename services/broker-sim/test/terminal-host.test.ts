import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createHostSeal, type HostSeal, terminalHostCodecs, terminalHostSubject } from '@mtx/shared/connector/terminal-host';
import { createLogger } from '@mtx/shared/logger';
import { connectNats, type NatsConnection } from '@mtx/shared/nats';
import type { BrokerSimApp } from '../src/app';
import { seal, startTerminal, terminalHostApp } from './terminal-host-harness';

const logger = createLogger('terminal-host-test', { level: 'silent' });

/** A connector's terminal listener reduced to its first step: it welcomes every hello and notes its fields. */
async function fakeConnector() {
  const hellos: Array<Map<string, string>> = [];
  const server = net.createServer((socket) => {
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('utf8');
      for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
        const [type, ...fields] = buffered.slice(0, end).split('\t');
        buffered = buffered.slice(end + 1);
        if (type !== 'hello') continue;
        hellos.push(new Map(fields.map((field) => [field.slice(0, field.indexOf('=')), field.slice(field.indexOf('=') + 1)])));
        socket.write('welcome\tv=1\tconnection=c-1\tmax_inflight=8\thb_ms=10000\tidle_ms=30000\n');
      }
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return { hellos, address: `127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe('broker-sim as the terminal host (NATS)', () => {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'terminal-host-'));
  const subjectRoot = `t${crypto.randomBytes(5).toString('hex')}`;
  let connector: Awaited<ReturnType<typeof fakeConnector>>;
  let app: BrokerSimApp;
  let nats: NatsConnection;

  const build = () =>
    terminalHostApp({
      subjectRoot,
      directory,
      logger,
      overrides: { TERMINAL_CONNECTOR_MT4_ADDRESSES: connector.address, TERMINAL_CONNECTOR_MT5_ADDRESSES: connector.address },
    });

  const start = (
    platform: string,
    fields: { account_id: string; server: string; login: string; password: string; token?: string },
    sealWith: HostSeal = seal,
  ) => startTerminal(nats, subjectRoot, platform, { ...fields, token: fields.token ?? 'tk_'.padEnd(43, 'x') }, sealWith);

  beforeAll(async () => {
    connector = await fakeConnector();
    nats = await connectNats(inject('natsUrl'), 'terminal-host-test', logger);
    app = build();
    await app.start();
  });

  afterAll(async () => {
    await app?.stop(1_000);
    await nats?.close();
    await connector?.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  it('starts a terminal whose EA says hello with the token and is attached once welcomed', async () => {
    const token = crypto.randomBytes(32).toString('base64url');
    const reply = await start('mt5', { account_id: 'acc_one', server: 'alphafx-live', login: '9101', password: 'pw', token });
    expect(reply).toMatchObject({ status: 'attached', server: 'AlphaFX-Live', symbol_suffix: '', margin_mode: 'hedging' });
    const hello = connector.hellos.find((fields) => fields.get('login') === '9101');
    expect([hello?.get('token'), hello?.get('platform'), hello?.get('server')]).toEqual([token, 'mt5', 'AlphaFX-Live']);
    expect([...app.fleet.links.keys()]).toContain('acc_one');
  });

  it('refuses a wrong password, an unknown server and a server of the other platform, and runs nothing for them', async () => {
    const running = app.fleet.links.size;
    expect((await start('mt5', { account_id: 'acc_bad', server: 'AlphaFX-Live', login: '9101', password: 'wrong' })).status).toBe(
      'invalid_credentials',
    );
    expect((await start('mt5', { account_id: 'acc_bad', server: 'Nowhere-Live', login: '9102', password: 'pw' })).status).toBe(
      'unknown_server',
    );
    expect((await start('mt5', { account_id: 'acc_bad', server: 'OmegaCapital-Demo', login: '9103', password: 'pw' })).status).toBe(
      'wrong_platform',
    );
    const otherKey = createHostSeal(crypto.randomBytes(32).toString('base64'));
    const sealedElsewhere = await start(
      'mt4',
      { account_id: 'acc_bad', server: 'OmegaCapital-Demo', login: '9104', password: 'pw' },
      otherKey,
    );
    expect(sealedElsewhere.status).toBe('unavailable');
    expect(app.fleet.links.size).toBe(running);
    expect(app.fleet.links.has('acc_bad')).toBe(false);
  });

  it('lists the trade servers of one platform', async () => {
    const message = await nats.request(terminalHostSubject(subjectRoot, 'mt4', 'servers'), terminalHostCodecs.serversRequest.encode({}), {
      timeout: 5_000,
    });
    const servers = terminalHostCodecs.serversReply.decode(message.data).servers;
    expect(servers.map((server) => server.name).sort()).toEqual(['DeltaPrime-ECN', 'GammaTrade-Real', 'OmegaCapital-Demo']);
    expect(new Set(servers.map((server) => server.platform))).toEqual(new Set(['mt4']));
  });

  it('resumes its terminals after a restart, and stops one for good', async () => {
    await start('mt4', { account_id: 'acc_two', server: 'OmegaCapital-Demo', login: '9201', password: 'pw' });
    await app.stop(1_000);
    const hellosBefore = connector.hellos.filter((fields) => fields.get('login') === '9201').length;
    app = build();
    await app.start();
    expect(new Set(app.fleet.links.keys())).toEqual(new Set(['acc_one', 'acc_two']));
    await app.fleet.links.get('acc_two')!.admitted;
    expect(connector.hellos.filter((fields) => fields.get('login') === '9201').length).toBeGreaterThan(hellosBefore);

    const stop = async (accountId: string) =>
      nats
        .request(terminalHostSubject(subjectRoot, 'mt4', 'stop'), terminalHostCodecs.stopRequest.encode({ account_id: accountId }), {
          timeout: 1_000,
        })
        .then(
          (message) => terminalHostCodecs.stopReply.decode(message.data).stopped,
          () => 'no answer',
        );
    expect(await stop('acc_two')).toBe(true);
    expect(app.fleet.links.has('acc_two')).toBe(false);
    // A host that does not run the terminal stays silent.
    expect(await stop('acc_two')).toBe('no answer');
    const kept = JSON.parse(fs.readFileSync(path.join(directory, 'terminals.json'), 'utf8')) as Array<{ account_id: string }>;
    expect(kept.map((record) => record.account_id)).toEqual(['acc_one']);
    expect(fs.readFileSync(path.join(directory, 'terminals.json'), 'utf8')).not.toContain('"pw"');
  });
});
