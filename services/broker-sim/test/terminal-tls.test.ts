import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type TerminalDirectory, tokenDigest } from '@mtx/connector-runtime/bridge/terminal-admission';
import { TerminalServer } from '@mtx/connector-runtime/bridge/terminal-server';
import { createLogger } from '@mtx/shared/logger';
import { connectNats, type NatsConnection } from '@mtx/shared/nats';
import type { BrokerSimApp } from '../src/app';
import { loadBrokerSimConfig, terminalTlsOf } from '../src/config';
import { startTerminal, terminalHostApp } from './terminal-host-harness';

/**
 * broker-sim's emulated EAs dialling real connector terminal listeners over TLS (docs/terminal-bridge.md,
 * "Security"): they trust the CA of TERMINAL_TLS_CA_FILE, attach to a listener whose certificate it signed, and
 * never to one whose certificate it did not.
 */
const logger = createLogger('terminal-tls-test', { level: 'silent' });
const token = `tk_${crypto.randomBytes(24).toString('base64url')}`;

function openssl(args: string[]): void {
  execFileSync('openssl', args, { stdio: 'ignore' });
}

/** A development CA, a listener certificate it signs for 127.0.0.1, and an impostor's self-signed one for the same address. */
function certificates(directory: string) {
  const file = (name: string) => path.join(directory, name);
  const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const names = ['-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'];
  openssl(['req', '-x509', ...ecKey, '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '1', '-subj', '/CN=mtx test CA']);
  openssl(['req', ...ecKey, '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', '/CN=localhost', ...names]);
  openssl([
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-out',
    file('server.pem'),
    '-days',
    '1',
    '-copy_extensions',
    'copy',
  ]);
  openssl([
    'req',
    '-x509',
    ...ecKey,
    '-keyout',
    file('impostor.key'),
    '-out',
    file('impostor.pem'),
    '-days',
    '1',
    '-subj',
    '/CN=localhost',
    ...names,
  ]);
  return {
    caFile: file('ca.pem'),
    listener: { key: fs.readFileSync(file('server.key')), cert: fs.readFileSync(file('server.pem')) },
    impostor: { key: fs.readFileSync(file('impostor.key')), cert: fs.readFileSync(file('impostor.pem')) },
  };
}

/** Knows every login this test starts, with the token it is started with: only the certificate tells the listeners apart. */
const directory: TerminalDirectory = {
  async lookup({ login, server }) {
    return { accountId: `acc_${login}`, tokenDigest: tokenDigest(token), login: String(login), server };
  },
};

async function listener(tlsFiles: { key: Buffer; cert: Buffer }) {
  const server = new TerminalServer(
    {
      host: '127.0.0.1',
      port: 0,
      tls: tlsFiles,
      maxConnections: 16,
      helloDeadlineMs: 2_000,
      heartbeatMs: 1_000,
      idleMs: 5_000,
      maxInFlight: 4,
      maxQueued: 4,
      maxFrameBytes: 65_536,
      lookupDeadlineMs: 1_000,
      latencyAllowanceMs: 10,
      closeWaitMs: 200,
    },
    { directory, logger },
  );
  const port = await server.start();
  return { server, address: `127.0.0.1:${port}` };
}

describe('emulated EAs over TLS (TERMINAL_TLS_CA_FILE)', () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'terminal-tls-'));
  const subjectRoot = `t${crypto.randomBytes(5).toString('hex')}`;
  let trusted: Awaited<ReturnType<typeof listener>>;
  let impostor: Awaited<ReturnType<typeof listener>>;
  let app: BrokerSimApp;
  let nats: NatsConnection;
  let caFile: string;

  const start = (platform: string, accountId: string, server: string, login: string) =>
    startTerminal(nats, subjectRoot, platform, { account_id: accountId, server, login, password: 'pw', token });

  beforeAll(async () => {
    const made = certificates(folder);
    caFile = made.caFile;
    trusted = await listener(made.listener);
    impostor = await listener(made.impostor);
    nats = await connectNats(inject('natsUrl'), 'terminal-tls-test', logger);
    app = terminalHostApp({
      subjectRoot,
      directory: folder,
      logger,
      environment: {
        TERMINAL_TLS_CA_FILE: caFile,
        TERMINAL_CONNECTOR_MT5_ADDRESSES: trusted.address,
        TERMINAL_CONNECTOR_MT4_ADDRESSES: impostor.address,
      },
    });
    await app.start();
  });

  afterAll(async () => {
    await app?.stop(1_000);
    await nats?.close();
    await Promise.all([trusted?.server.close(200), impostor?.server.close(200)]);
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('reads the CA file, and leaves TLS off when the setting is empty', () => {
    expect(terminalTlsOf({ TERMINAL_TLS_CA_FILE: caFile })?.ca.toString()).toBe(fs.readFileSync(caFile, 'utf8'));
    expect(terminalTlsOf(loadBrokerSimConfig({}))).toBeUndefined();
    expect(() => terminalTlsOf({ TERMINAL_TLS_CA_FILE: path.join(folder, 'missing.pem') })).toThrow(/ENOENT/);
  });

  it('attaches an EA to a listener whose certificate the CA signed', async () => {
    const reply = await start('mt5', 'acc_trusted', 'AlphaFX-Live', '9301');
    expect(reply.status).toBe('attached');
    expect(trusted.server.isAttached('acc_9301')).toBe(true);
    const link = app.fleet.links.get('acc_trusted')!;
    expect([link.stats.connected, link.stats.welcomes]).toEqual([true, 1]);
  });

  it('never says hello to a listener whose certificate the CA did not sign, and keeps dialling', async () => {
    const reply = await start('mt4', 'acc_untrusted', 'OmegaCapital-Demo', '9302');
    expect(reply.status).toBe('started');
    const link = app.fleet.links.get('acc_untrusted')!;
    const dialsBefore = link.stats.dials;
    expect(dialsBefore).toBeGreaterThanOrEqual(1);
    // Redials back off up to TERMINAL_RECONNECT_MAX_MS (200 ms here): within a second, it has tried again.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(link.stats.dials).toBeGreaterThan(dialsBefore);
    expect([link.stats.welcomes, link.stats.connected]).toEqual([0, false]);
    expect(impostor.server.isAttached('acc_9302')).toBe(false);
  });
});
