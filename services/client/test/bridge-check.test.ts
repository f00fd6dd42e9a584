import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Broker } from '@mtx/broker-sim/src/app/broker';
import { PriceFeed } from '@mtx/broker-sim/src/domain/prices';
import { FileJournal } from '@mtx/broker-sim/src/store/journal';
import { TerminalFleet } from '@mtx/broker-sim/src/terminal/terminal-fleet';
import { systemClock } from '@mtx/shared/clock';
import { createLogger } from '@mtx/shared/logger';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli';
import type { CliIo } from '../src/cli/context';

/**
 * `bridge:check` run as the CLI runs it, against broker-sim's emulated MT5 and MT4 terminals dialling it over
 * loopback, each trading on a real in-process broker.
 */

const logger = createLogger('bridge-check-test', { level: 'silent' });
const token = 'tk_9f3Kq2LmX8vB7nR4tY6wZ1aC5dE0gH2j';

interface Output {
  stdout: string;
  stderr: string;
}

interface Row {
  command: string;
  result: 'pass' | 'fail' | 'skipped';
  detail: string;
  latencyMs?: number;
}

function captureIo(onListening: (port: number) => void): { io: CliIo; output: Output } {
  const output: Output = { stdout: '', stderr: '' };
  const writer = (key: keyof Output) => ({
    write(chunk: string) {
      output[key] += chunk;
      const listening = key === 'stderr' ? /on 127\.0\.0\.1:(\d+)/.exec(chunk) : null;
      if (listening) onListening(Number(listening[1]));
      return true;
    },
  });
  const io = { stdout: writer('stdout'), stderr: writer('stderr'), environment: {} } as unknown as CliIo;
  return { io, output };
}

describe('bridge:check against emulated terminals', () => {
  let directory: string;
  let journal: FileJournal;
  let broker: Broker;
  let fleet: TerminalFleet | undefined;

  beforeAll(async () => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'bridge-check-'));
    journal = await FileJournal.open(path.join(directory, 'journal.ndjson'), logger);
    broker = new Broker({ journal, clock: systemClock, logger, latencyMs: 0, prices: new PriceFeed(() => 0.5) });
    broker.load();
  });

  afterEach(async () => {
    await fleet?.close(500);
    fleet = undefined;
  });

  afterAll(async () => {
    await journal.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  /** Runs the command; once it listens, an emulated terminal of `server`/`login` dials it with `terminalToken`. */
  async function check(args: string[], terminal: { server: string; login: string; token?: string; versions?: number[] }) {
    fleet = new TerminalFleet(broker, logger, { backoffInitialMs: 100, backoffMaxMs: 400, versions: terminal.versions ?? [2, 1] });
    const started = fleet;
    const { io, output } = captureIo((port) =>
      started.start({
        server: terminal.server,
        login: terminal.login,
        password: 'secret',
        addresses: [`127.0.0.1:${port}`],
        token: terminal.token ?? token,
      }),
    );
    const status = await runCli(['bridge:check', '--listen', '127.0.0.1:0', '--token', token, ...args], io);
    return { status, output };
  }

  function rowsOf(output: Output): Row[] {
    return (JSON.parse(output.stdout) as { rows: Row[] }).rows;
  }

  it('passes every row on MT5 with --trade: open, modify, partial close, close, history, find', async () => {
    const { status, output } = await check(
      ['--trade', '--login', '5201', '--server', 'AlphaFX-Live', '--volume', '0.02', '--json', '--wait-seconds', '10'],
      { server: 'AlphaFX-Live', login: '5201' },
    );
    const rows = rowsOf(output);
    expect(rows.filter((row) => row.result !== 'pass')).toEqual([]);
    expect(rows.map((row) => row.command)).toEqual([
      'hello',
      'account',
      'symbol',
      'symbol (unknown)',
      'symbols',
      'positions',
      'orders',
      'ticket (unknown)',
      'check',
      'history deals',
      'history orders',
      'find',
      'unknown command',
      'open',
      'modify',
      'close (partial)',
      'close',
      'history',
      'find',
      'send_batch',
      'close (send_batch)',
    ]);
    expect(rows.find((row) => row.command === 'hello')?.detail).toContain('protocol v2');
    expect(rows.find((row) => row.command === 'send_batch')?.detail).toMatch(
      /two buys of 0\.01 in one request, positions \d+, \d+ in order/,
    );
    expect(rows.find((row) => row.command === 'history')?.detail).toContain('1 in, 2 out');
    expect(rows.find((row) => row.command === 'account')!.latencyMs).toBeGreaterThanOrEqual(0);
    expect(status).toBe(0);
    // Nothing is left open on the account, and the token appears nowhere in what was printed.
    const { account } = await broker.login('AlphaFX-Live', '5201', 'secret');
    expect(account.positions.size).toBe(0);
    expect(output.stdout + output.stderr).not.toContain(token);
  });

  it('passes on MT4, where a partial close re-tickets the rest, and prints a table', async () => {
    const { status, output } = await check(['--trade', '--login', '7201', '--server', 'OmegaCapital-Demo', '--volume', '0.02'], {
      server: 'OmegaCapital-Demo',
      login: '7201',
    });
    expect(output.stdout).toMatch(/^COMMAND\s+RESULT\s+DETAIL\s+LATENCY\n/);
    expect(output.stdout).toMatch(/history deals\s+pass\s+error=bad_request as required/);
    expect(output.stdout).toMatch(/close \(partial\)\s+pass\s+closed 0\.01, 0\.01 left, the rest re-ticketed \d+/);
    expect(output.stdout).toMatch(/send_batch\s+pass\s+two buys of 0\.01 in one request/);
    expect(output.stdout).toContain('21 passed, 0 failed, 0 skipped');
    expect(status).toBe(0);
  });

  it('skips send_batch on an EA that speaks v1 only, and passes the rest', async () => {
    const { status, output } = await check(
      ['--trade', '--login', '5203', '--server', 'AlphaFX-Live', '--volume', '0.02', '--json', '--wait-seconds', '10'],
      { server: 'AlphaFX-Live', login: '5203', versions: [1] },
    );
    const rows = rowsOf(output);
    expect(rows.find((row) => row.command === 'hello')?.detail).toContain('protocol v1');
    expect(rows.at(-1)).toMatchObject({ command: 'send_batch', result: 'skipped' });
    expect(rows.filter((row) => row.result === 'fail')).toEqual([]);
    expect(status).toBe(0);
    const { account } = await broker.login('AlphaFX-Live', '5203', 'secret');
    expect(account.positions.size).toBe(0);
  });

  it('without --trade runs the reads only and skips the trade, with the minimum volume too small to split', async () => {
    const { status, output } = await check(['--json', '--wait-seconds', '10'], { server: 'AlphaFX-Live', login: '5202' });
    const rows = rowsOf(output);
    expect(rows.at(-1)).toMatchObject({ command: 'trade', result: 'skipped' });
    expect(rows.filter((row) => row.result === 'fail')).toEqual([]);
    expect(status).toBe(0);
  });

  it('exits 2 when the only terminal has another token, and says it was refused', async () => {
    const { status, output } = await check(['--wait-seconds', '1.5'], {
      server: 'AlphaFX-Live',
      login: '5203',
      token: 'tk_another_token_of_32_characters_x',
    });
    expect(status).toBe(2);
    expect(output.stderr).toContain('mt5 login 5203 on AlphaFX-Live was refused');
    expect(output.stdout).toBe('');
  });

  it('exits 2 when a terminal of another login dials, and never trades on it', async () => {
    const { status, output } = await check(['--trade', '--login', '5999', '--server', 'AlphaFX-Live', '--wait-seconds', '1.5'], {
      server: 'AlphaFX-Live',
      login: '5204',
    });
    expect(status).toBe(2);
    expect(output.stderr).toContain('mt5 login 5204 on AlphaFX-Live dialled but is not the terminal asked for');
    const { account } = await broker.login('AlphaFX-Live', '5204', 'secret');
    expect(account.positions.size).toBe(0);
  });

  it('fails the open row and exits 1 when the trade server rejects the trade', async () => {
    broker.setFaults('AlphaFX-Live', '5205', { reject_code: 10019, remaining: 1 });
    const { status, output } = await check(['--trade', '--login', '5205', '--server', 'AlphaFX-Live', '--json', '--wait-seconds', '10'], {
      server: 'AlphaFX-Live',
      login: '5205',
    });
    const rows = rowsOf(output);
    expect(rows.find((row) => row.command === 'open')).toMatchObject({ result: 'fail' });
    expect(rows.find((row) => row.command === 'open')!.detail).toContain('retcode 10019');
    expect(rows.find((row) => row.command === 'modify')).toMatchObject({ result: 'skipped', detail: 'skipped: open did not pass' });
    expect(rows.find((row) => row.command === 'account')).toMatchObject({ result: 'pass' });
    expect(status).toBe(1);
  });

  it('refuses --trade without the account named, before listening', async () => {
    const { io, output } = captureIo(() => undefined);
    await expect(runCli(['bridge:check', '--token', token, '--trade'], io)).rejects.toThrow('--trade needs --login and --server');
    await expect(runCli(['bridge:check', '--token', 'short'], io)).rejects.toThrow('32–256 characters');
    expect(output.stderr).toBe('');
  });
});

describe('bridge:check against a terminal answering garbage', () => {
  it('fails the row of the malformed answer and exits 1', async () => {
    const { io, output } = captureIo((port) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        const now = Math.floor(Date.now() / 1000);
        socket.write(
          `hello\tv=1\tplatform=mt5\tlogin=42\tserver=Scripted\tea=1.0.0\tbuild=4410\ttoken=${token}\tserver_time=${now}\tgmt_time=${now}\n`,
        );
      });
      let buffered = '';
      socket.on('data', (chunk) => {
        buffered += chunk.toString('utf8');
        let newline = buffered.indexOf('\n');
        while (newline >= 0) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          newline = buffered.indexOf('\n');
          const id = /\tid=(\d+)/.exec(line)?.[1];
          if (!line.startsWith('req') || !id) continue;
          const command = /\tcmd=([a-z_]+)/.exec(line)![1];
          // Every command is answered `unsupported` except `account`, whose balance is not a number.
          socket.write(
            command === 'account'
              ? `res\tid=${id}\tstatus=ok\tlogin=42\tserver=Scripted\tcompany=C\tcurrency=USD\tleverage=100\tbalance=lots\tequity=1\tmargin=0\tfree_margin=1\tmargin_level=0\tprofit=0\tmargin_mode=hedging\ttrade_allowed=1\tserver_time=${Math.floor(Date.now() / 1000)}\n`
              : `res\tid=${id}\tstatus=error\terror=unsupported\tmessage=scripted\n`,
          );
        }
      });
      socket.on('error', () => undefined);
    });
    const status = await runCli(['bridge:check', '--listen', '127.0.0.1:0', '--token', token, '--json', '--wait-seconds', '5'], io);
    const rows = (JSON.parse(output.stdout) as { rows: Row[] }).rows;
    expect(rows.find((row) => row.command === 'account')).toMatchObject({
      result: 'fail',
      detail: 'account: balance="lots" is not a decimal',
    });
    expect(rows.find((row) => row.command === 'symbol')!.detail).toBe('symbol: status=error error=unsupported scripted');
    expect(rows.find((row) => row.command === 'unknown command')).toMatchObject({ result: 'pass' });
    expect(rows.find((row) => row.command === 'history deals')).toMatchObject({ result: 'skipped' });
    expect(status).toBe(1);
  });
});
