import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@mtx/shared/logger';
import { selfSignedCertificate } from '@mtx/shared/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TerminalServer } from '../src/bridge/terminal-server';
import { terminalServerSettings } from '../src/bridge/terminal-server-settings';
import { loadConnectorConfig } from '../src/config';
import { ScriptedTerminal } from './scripted-terminal';
import { directory, failure, settings, startServer, stopServers, welcomed } from './terminal-server-harness';

/**
 * The terminal listener when things go wrong or end (docs/terminal-bridge.md, "Wire format", "Requests and
 * answers", "Roles and transport"): a violation closes the offending connection only, after its `error` frame,
 * while another terminal's calls carry on; TLS is required off loopback; a close lets calls in hand finish.
 */

afterEach(stopServers);

/** Terminal one (account acc_one) misbehaves; terminal two (acc_two, its own token) must not notice. */
async function twoTerminals(port: number): Promise<{ offender: ScriptedTerminal; bystander: ScriptedTerminal }> {
  const offender = await welcomed(port);
  const bystander = await welcomed(port, { login: 5009999, token: 'tk_9f3Kq2LmX8vB7nR4tY6wZ1aC5dE0gH2jx' });
  return { offender, bystander };
}

async function expectStillWorking(server: TerminalServer, bystander: ScriptedTerminal): Promise<void> {
  const answer = server.call('acc_two', 'account', [], { deadlineMs: 1_000 });
  const request = await bystander.next();
  bystander.send('res', { id: request.fields.get('id')!, status: 'ok', login: 5009999 });
  expect((await answer).fields.get('login')).toBe('5009999');
}

describe('terminal server: violations close that connection only', () => {
  const cases: Array<{ name: string; code: string; offend(terminal: ScriptedTerminal): void }> = [
    { name: 'a malformed frame', code: 'malformed', offend: (terminal) => terminal.sendBytes('res\tid=1\tno-equals-sign\n') },
    { name: 'a bad escape', code: 'malformed', offend: (terminal) => terminal.sendBytes('hb\tserver_time=%zz\n') },
    { name: 'an oversized frame', code: 'frame_too_large', offend: (terminal) => terminal.sendBytes(`hb\tpad=${'x'.repeat(5_000)}`) },
    { name: 'an answer to an id never sent', code: 'unknown_id', offend: (terminal) => terminal.send('res', { id: 40, status: 'ok' }) },
    { name: 'a second hello', code: 'unexpected_frame', offend: (terminal) => terminal.hello() },
    { name: 'a request from the EA', code: 'unexpected_frame', offend: (terminal) => terminal.send('req', { id: 1, cmd: 'account' }) },
  ];

  for (const { name, code, offend } of cases) {
    it(`${name}: error code=${code}, then close; calls in flight fail unknown`, async () => {
      const { server, port, events } = await startServer();
      const { offender, bystander } = await twoTerminals(port);
      const inFlight = failure(server.call('acc_one', 'send', [['action', '1']], { deadlineMs: 2_000 }));
      await offender.next();
      offend(offender);
      const error = await offender.next();
      expect([error.type, error.fields.get('code')]).toEqual(['error', code]);
      await offender.closed;
      expect((await inFlight).code).toBe('unknown');
      await expect.poll(() => events.includes('detached acc_one')).toBe(true);
      expect(server.isAttached('acc_two')).toBe(true);
      await expectStillWorking(server, bystander);
    });
  }

  it('a second answer to the same id: error code=duplicate_id', async () => {
    const { server, port } = await startServer();
    const { offender, bystander } = await twoTerminals(port);
    const answered = server.call('acc_one', 'account', [], { deadlineMs: 1_000 });
    const request = await offender.next();
    offender.send('res', { id: request.fields.get('id')!, status: 'ok' });
    expect((await answered).status).toBe('ok');
    offender.send('res', { id: request.fields.get('id')!, status: 'ok' });
    const error = await offender.next();
    expect([error.type, error.fields.get('code')]).toEqual(['error', 'duplicate_id']);
    await offender.closed;
    await expectStillWorking(server, bystander);
  });

  it('ignores a frame type it does not know and carries on', async () => {
    const { server, port } = await startServer();
    const terminal = await welcomed(port);
    terminal.send('quote', { symbol: 'EURUSD' });
    const answer = server.call('acc_one', 'account', [], { deadlineMs: 1_000 });
    terminal.send('res', { id: (await terminal.next()).fields.get('id')!, status: 'ok' });
    expect((await answer).status).toBe('ok');
  });
});

describe('terminal server: TLS', () => {
  let directoryPath = '';
  let key: Buffer;
  let cert: Buffer;
  let keyFile = '';
  let certFile = '';

  beforeAll(() => {
    directoryPath = fs.mkdtempSync(path.join(os.tmpdir(), 'terminal-tls-'));
    const made = selfSignedCertificate(directoryPath, 'DNS:localhost');
    ({ keyFile, certFile } = made);
    key = Buffer.from(made.key);
    cert = Buffer.from(made.cert);
  });
  afterAll(() => fs.rmSync(directoryPath, { recursive: true, force: true }));

  it('refuses to start without TLS on an address other than loopback', () => {
    const logger = createLogger('terminal-server-test', { level: 'silent' });
    expect(() => new TerminalServer({ ...settings, host: '0.0.0.0' }, { directory, logger })).toThrow(/needs TLS/);
  });

  it('takes its TLS key and certificate from the configured files, and needs both', () => {
    const logger = createLogger('terminal-server-test', { level: 'silent' });
    const environment = { TERMINAL_LISTEN_HOST: '0.0.0.0', TERMINAL_LISTEN_PORT: '0' };
    const plainConfig = loadConnectorConfig('mt5', environment);
    expect(() => new TerminalServer(terminalServerSettings(plainConfig), { directory, logger })).toThrow(/needs TLS/);
    const halfConfig = loadConnectorConfig('mt5', { ...environment, TERMINAL_TLS_KEY_FILE: keyFile });
    expect(() => terminalServerSettings(halfConfig)).toThrow(/set together/);
    const tlsConfig = loadConnectorConfig('mt5', { ...environment, TERMINAL_TLS_KEY_FILE: keyFile, TERMINAL_TLS_CERT_FILE: certFile });
    const tlsSettings = terminalServerSettings(tlsConfig);
    expect(tlsSettings.tls?.cert.toString()).toBe(cert.toString());
    expect([tlsSettings.maxInFlight, tlsSettings.heartbeatMs, tlsSettings.idleMs, tlsSettings.helloDeadlineMs]).toEqual([
      8, 10_000, 30_000, 10_000,
    ]);
    expect(() => new TerminalServer(tlsSettings, { directory, logger })).not.toThrow();
  });

  it('admits a terminal over TLS on 0.0.0.0 and closes a plain-TCP one before any frame', async () => {
    const { server, port } = await startServer({ host: '0.0.0.0', tls: { key, cert } });
    const secure = await ScriptedTerminal.connect(port, { ca: cert, servername: 'localhost' });
    secure.hello();
    expect((await secure.next()).type).toBe('welcome');
    const answer = server.call('acc_one', 'account', [], { deadlineMs: 1_000 });
    secure.send('res', { id: (await secure.next()).fields.get('id')!, status: 'ok', login: 5001234 });
    expect((await answer).fields.get('login')).toBe('5001234');

    const plain = await ScriptedTerminal.connect(port);
    plain.hello({ login: 5009999 });
    await plain.closed;
    expect(plain.pending()).toEqual([]);
    expect(server.isAttached('acc_two')).toBe(false);
  });
});

describe('terminal server: close', () => {
  it('lets the calls in hand finish, says bye shutdown, then refuses calls', async () => {
    const { server, port } = await startServer();
    const terminal = await welcomed(port);
    const inHand = server.call('acc_one', 'send', [['action', '1']], { deadlineMs: 2_000 });
    const request = await terminal.next();
    const closing = server.close(1_000);
    expect((await failure(server.call('acc_one', 'account', [], { deadlineMs: 500 }))).code).toBe('unavailable');
    terminal.send('res', { id: request.fields.get('id')!, status: 'ok', retcode: 10009 });
    expect((await inHand).fields.get('retcode')).toBe('10009');
    const bye = await terminal.next();
    expect([bye.type, bye.fields.get('reason')]).toEqual(['bye', 'shutdown']);
    await closing;
    await terminal.closed;
    await expect(ScriptedTerminal.connect(port)).rejects.toThrow();
  });

  it('destroys a terminal that neither answers nor closes when the grace ends', async () => {
    const { server, port, events } = await startServer({ closeWaitMs: 5_000 });
    const terminal = await ScriptedTerminal.connect(port, undefined, true);
    terminal.hello();
    expect((await terminal.next()).type).toBe('welcome');
    const stuck = failure(server.call('acc_one', 'send', [['action', '1']], { deadlineMs: 5_000 }));
    await terminal.next();
    const startedAt = Date.now();
    await server.close(300);
    // The grace (300 ms) ends it, not the terminal's own wait (5 s): the bound tells the two apart on a loaded machine.
    expect(Date.now() - startedAt).toBeLessThan(4_000);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(290);
    expect((await stuck).code).toBe('unknown');
    const bye = await terminal.next();
    expect([bye.type, bye.fields.get('reason')]).toEqual(['bye', 'shutdown']);
    // The connector's side is gone; a half-open peer learns it only when it next writes.
    expect(events).toEqual(['attached acc_one', 'detached acc_one']);
    terminal.destroy();
  });
});
