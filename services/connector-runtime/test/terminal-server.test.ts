import { afterEach, describe, expect, it } from 'vitest';
import { goodToken, ScriptedTerminal } from './scripted-terminal';
import { failure, settings, startServer, stopServers, welcomed } from './terminal-server-harness';

/**
 * The terminal listener over real loopback sockets against scripted EAs (docs/terminal-bridge.md): admission,
 * correlation by id, the in-flight bound, deadlines and late answers, heartbeats and the idle bound, protocol
 * violations closing one connection only, drops failing calls as unknown, TLS, and a clean close. Bounds are
 * shortened so the timings take a fraction of a second.
 */

afterEach(stopServers);

describe('terminal server: admission', () => {
  it('welcomes a registered terminal with the bounds and notes its server offset', async () => {
    const { server, port, events } = await startServer();
    const terminal = await ScriptedTerminal.connect(port);
    terminal.hello();
    const welcome = await terminal.next();
    expect(welcome.type).toBe('welcome');
    expect(Object.fromEntries(welcome.fields)).toMatchObject({ v: '1', max_inflight: '2', hb_ms: '150', idle_ms: '2000' });
    expect(events).toEqual(['attached acc_one']);
    expect(server.isAttached('acc_one')).toBe(true);
    // 1767261600 − 1767254400 = 7200 s: the example's UTC+2 server.
    expect(server.serverOffsetSeconds('acc_one')).toBe(7200);
  });

  it('refuses a wrong token and a login that is not the account’s, and never logs the token', async () => {
    const { server, port, logLines } = await startServer();
    const wrongToken = await ScriptedTerminal.connect(port);
    const presented = 'tk_WRONGwrongWRONGwrongWRONGwrong0123';
    wrongToken.hello({ token: presented });
    const refuse = await wrongToken.next();
    expect(refuse.type).toBe('refuse');
    expect(refuse.fields.get('reason')).toBe('bad_token');
    expect(refuse.fields.get('v')).toBe('2,1');
    await wrongToken.closed;

    const otherServer = await ScriptedTerminal.connect(port);
    otherServer.hello({ server: 'Live-Broker-Server' });
    expect((await otherServer.next()).fields.get('reason')).toBe('unknown_login');
    await otherServer.closed;

    const unregistered = await ScriptedTerminal.connect(port);
    unregistered.hello({ login: 7777 });
    // Nothing registered under that login, token and server: the token is not accepted.
    expect((await unregistered.next()).fields.get('reason')).toBe('bad_token');

    const laterVersion = await ScriptedTerminal.connect(port);
    laterVersion.hello({ v: '3' });
    const versionRefusal = await laterVersion.next();
    expect([versionRefusal.fields.get('reason'), versionRefusal.fields.get('v')]).toEqual(['version', '2,1']);

    expect(server.isAttached('acc_one')).toBe(false);
    expect(logLines.some((line) => line.includes('"reason":"bad_token"'))).toBe(true);
    const logged = logLines.join('\n');
    expect(logged).not.toContain(presented);
    expect(logged).not.toContain(goodToken);
    expect(logged).not.toContain('tk_');
  });

  it('closes a connection that sends no hello within the deadline, without a frame', async () => {
    const { port } = await startServer();
    const silent = await ScriptedTerminal.connect(port);
    const startedAt = Date.now();
    await silent.closed;
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(350);
    expect(silent.pending()).toEqual([]);
  });

  it('replaces the older connection of an account with bye replaced', async () => {
    const { server, port, events } = await startServer();
    const older = await welcomed(port);
    const newer = await welcomed(port);
    const bye = await older.next();
    expect([bye.type, bye.fields.get('reason')]).toEqual(['bye', 'replaced']);
    await older.closed;
    const answer = server.call('acc_one', 'account', [], { deadlineMs: 1_000 });
    const request = await newer.next();
    newer.send('res', { id: request.fields.get('id')!, status: 'ok', login: 5001234 });
    expect((await answer).fields.get('login')).toBe('5001234');
    expect(events).toEqual(['attached acc_one', 'attached acc_one replacing']);
  });
});

describe('terminal server: calls', () => {
  it('settles calls by id when the answers come out of order', async () => {
    const { server, port } = await startServer();
    const terminal = await welcomed(port);
    const account = server.call('acc_one', 'account', [], { deadlineMs: 2_000 });
    const send = server.call(
      'acc_one',
      'send',
      [
        ['action', '1'],
        ['symbol', 'EURUSD'],
      ],
      { deadlineMs: 2_000 },
    );
    const first = await terminal.next();
    const second = await terminal.next();
    expect([first.fields.get('id'), first.fields.get('cmd'), first.fields.has('ttl_ms')]).toEqual(['1', 'account', false]);
    expect([second.fields.get('id'), second.fields.get('cmd'), second.fields.get('symbol')]).toEqual(['2', 'send', 'EURUSD']);
    const ttlMs = Number(second.fields.get('ttl_ms'));
    expect(ttlMs).toBeGreaterThan(1_500);
    expect(ttlMs).toBeLessThanOrEqual(2_000 - settings.latencyAllowanceMs);
    terminal.send('res', { id: 2, status: 'ok', retcode: 10009, deal: 73001 });
    terminal.send('res', { id: 1, status: 'error', error: 'internal', message: 'no account yet' });
    const sent = await send;
    expect([sent.status, sent.fields.get('retcode'), sent.fields.get('deal')]).toEqual(['ok', '10009', '73001']);
    const read = await account;
    expect([read.status, read.error, read.message]).toEqual(['error', 'internal', 'no account yet']);
  });

  it('keeps at most the in-flight bound on the wire, queues one more and refuses beyond', async () => {
    const { server, port } = await startServer();
    const terminal = await welcomed(port);
    const calls = [1, 2, 3].map((n) => server.call('acc_one', 'ticket', [['ticket', String(n)]], { deadlineMs: 2_000 }));
    const refused = await failure(server.call('acc_one', 'ticket', [['ticket', '4']], { deadlineMs: 2_000 }));
    expect([refused.code, refused.sent]).toEqual(['unavailable', false]);
    const first = await terminal.next();
    const second = await terminal.next();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(terminal.pending().filter((frame) => frame.type === 'req')).toEqual([]);
    terminal.send('res', { id: first.fields.get('id')!, status: 'ok', ticket: first.fields.get('ticket')! });
    const third = await terminal.next();
    expect([third.fields.get('id'), third.fields.get('ticket')]).toEqual(['3', '3']);
    terminal.send('res', { id: 3, status: 'ok', ticket: 3 });
    terminal.send('res', { id: second.fields.get('id')!, status: 'ok', ticket: 2 });
    const answers = await Promise.all(calls);
    expect(answers.map((answer) => answer.fields.get('ticket'))).toEqual(['1', '2', '3']);
  });

  it('sends a backlog in bunches: the wire is filled again once half the bound is answered', async () => {
    const { server, port } = await startServer({ maxInFlight: 4, maxQueued: 8 });
    const terminal = await welcomed(port);
    const calls = [1, 2, 3, 4, 5, 6].map((n) => server.call('acc_one', 'ticket', [['ticket', String(n)]], { deadlineMs: 2_000 }));
    const first = [await terminal.next(), await terminal.next(), await terminal.next(), await terminal.next()];
    expect(first.map((frame) => frame.fields.get('ticket'))).toEqual(['1', '2', '3', '4']);
    terminal.send('res', { id: 1, status: 'ok', ticket: 1 });
    expect((await calls[0]!).fields.get('ticket')).toBe('1');
    // Three still on the wire: the EA has work, so nothing more is sent yet.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(terminal.pending().filter((frame) => frame.type === 'req')).toEqual([]);
    terminal.send('res', { id: 2, status: 'ok', ticket: 2 });
    const bunch = [await terminal.next(), await terminal.next()];
    expect(bunch.map((frame) => [frame.fields.get('id'), frame.fields.get('ticket')])).toEqual([
      ['5', '5'],
      ['6', '6'],
    ]);
    for (const id of [3, 4, 5, 6]) terminal.send('res', { id, status: 'ok', ticket: id });
    expect((await Promise.all(calls)).map((answer) => answer.fields.get('ticket'))).toEqual(['1', '2', '3', '4', '5', '6']);
  });

  it('fails a queued call it could not send before its fence as unavailable, and one on the wire at its deadline', async () => {
    const { server, port } = await startServer();
    const terminal = await welcomed(port);
    const onWire = [1, 2].map((n) => failure(server.call('acc_one', 'ticket', [['ticket', String(n)]], { deadlineMs: 300 })));
    const queued = failure(server.call('acc_one', 'send', [['action', '1']], { deadlineMs: 2_000, fenceUnixMs: Date.now() + 100 }));
    await terminal.next();
    await terminal.next();
    const notSent = await queued;
    expect([notSent.code, notSent.sent]).toEqual(['unavailable', false]);
    expect((await Promise.all(onWire)).map((error) => error.code)).toEqual(['deadline', 'deadline']);
    expect(terminal.pending().filter((frame) => frame.type === 'req')).toEqual([]);
  });

  it('fails a call at its deadline and hands its late answer to reconciliation', async () => {
    const { server, port, late } = await startServer();
    const terminal = await welcomed(port);
    const slow = failure(server.call('acc_one', 'send', [['action', '1']], { deadlineMs: 150 }));
    const request = await terminal.next();
    const timedOut = await slow;
    expect([timedOut.code, timedOut.sent]).toEqual(['deadline', true]);
    terminal.send('res', { id: request.fields.get('id')!, status: 'ok', retcode: 10009, order: 91002 });
    await expect.poll(() => late.length).toBe(1);
    expect([late[0]!.command, late[0]!.answer.fields.get('order')]).toEqual(['send', '91002']);
    // The connection carries on.
    const next = server.call('acc_one', 'account', [], { deadlineMs: 1_000 });
    terminal.send('res', { id: (await terminal.next()).fields.get('id')!, status: 'ok' });
    expect((await next).status).toBe('ok');
  });

  it('fails a request it cannot write as unavailable, without taking a slot', async () => {
    const { server, port } = await startServer();
    const terminal = await welcomed(port);
    for (const args of [[['Bad Key', 'x']], [['comment', 'x'.repeat(1_048_576)]]] as Array<Array<[string, string]>>) {
      const error = await failure(server.call('acc_one', 'send', args, { deadlineMs: 1_000 }));
      expect([error.code, error.sent]).toEqual(['unavailable', false]);
    }
    // Both in-flight slots are still free: two calls go out at once.
    const calls = [1, 2].map(() => server.call('acc_one', 'account', [], { deadlineMs: 1_000 }));
    const ids = [(await terminal.next()).fields.get('id')!, (await terminal.next()).fields.get('id')!];
    for (const id of ids) terminal.send('res', { id, status: 'ok' });
    expect((await Promise.all(calls)).map((answer) => answer.status)).toEqual(['ok', 'ok']);
  });

  it('answers unavailable at once for an account without a terminal', async () => {
    const { server } = await startServer();
    const error = await failure(server.call('acc_one', 'account', [], { deadlineMs: 1_000 }));
    expect([error.code, error.sent]).toEqual(['unavailable', false]);
  });

  it('fails the calls in flight as unknown when the terminal drops', async () => {
    const { server, port, events } = await startServer();
    const terminal = await welcomed(port);
    const inFlight = failure(server.call('acc_one', 'send', [['action', '1']], { deadlineMs: 2_000 }));
    await terminal.next();
    terminal.destroy();
    const error = await inFlight;
    expect([error.code, error.sent]).toEqual(['unknown', true]);
    await expect.poll(() => events).toEqual(['attached acc_one', 'detached acc_one']);
    expect((await failure(server.call('acc_one', 'account', [], { deadlineMs: 500 }))).code).toBe('unavailable');
  });
});

describe('terminal server: liveness', () => {
  it('sends heartbeats with its clock, takes the offset from the EA’s, and closes a silent terminal', async () => {
    const { server, port, events } = await startServer({ idleMs: 600 });
    const terminal = await welcomed(port);
    const heartbeat = await terminal.next({ heartbeats: true });
    expect(heartbeat.type).toBe('hb');
    expect(Math.abs(Number(heartbeat.fields.get('utc_ms')) - Date.now())).toBeLessThan(1_000);
    terminal.send('hb', { server_time: 1767265200, gmt_time: 1767254400 });
    await expect.poll(() => server.serverOffsetSeconds('acc_one')).toBe(10800);
    const bye = await terminal.next({ timeoutMs: 2_000 });
    expect([bye.type, bye.fields.get('reason')]).toEqual(['bye', 'idle']);
    await terminal.closed;
    await expect.poll(() => events).toEqual(['attached acc_one', 'detached acc_one']);
  });
});
