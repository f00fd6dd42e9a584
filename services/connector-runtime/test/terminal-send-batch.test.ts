import { afterEach, describe, expect, it } from 'vitest';
import { failure, startServer, stopServers, welcomed } from './terminal-server-harness';

/**
 * `send_batch` (protocol v2, docs/terminal-bridge.md) over real loopback sockets against scripted EAs: the `send`
 * calls of one turn leave as one request holding one in-flight slot, each call settled by its own item; an EA that
 * offers v1 only gets one `send` per call; a malformed answer ends the connection with every item unknown; and a
 * batch past its deadline hands each item's late answer to reconciliation.
 */

afterEach(stopServers);

const sendArgs = (symbol: string): Array<[string, string]> => [
  ['action', '1'],
  ['symbol', symbol],
  ['volume', '0.10'],
];

describe('terminal server: send_batch', () => {
  it('sends one turn’s sends as one send_batch in one slot and settles each call with its item', async () => {
    const { server, port } = await startServer();
    const terminal = await welcomed(port, { v: '2,1' });
    // Three sends and a read: three is past the in-flight bound of 2, yet the batch holds one slot.
    const sends = ['EURUSD', 'GBPUSD', 'USDJPY'].map((symbol) => server.call('acc_one', 'send', sendArgs(symbol), { deadlineMs: 2_000 }));
    const account = server.call('acc_one', 'account', [], { deadlineMs: 2_000 });
    const frames = [await terminal.next(), await terminal.next()];
    const batch = frames.find((frame) => frame.fields.get('cmd') === 'send_batch')!;
    const read = frames.find((frame) => frame.fields.get('cmd') === 'account')!;
    expect(Object.fromEntries(batch.fields)).toMatchObject({
      legs: '3',
      'legs.0.action': '1',
      'legs.0.symbol': 'EURUSD',
      'legs.1.symbol': 'GBPUSD',
      'legs.2.symbol': 'USDJPY',
      'legs.2.volume': '0.10',
    });
    expect(Number(batch.fields.get('ttl_ms'))).toBeGreaterThan(1_500);
    terminal.send('res', {
      id: batch.fields.get('id')!,
      status: 'ok',
      results: 3,
      'results.0.status': 'ok',
      'results.0.retcode': 10009,
      'results.0.deal': 73001,
      'results.1.status': 'error',
      'results.1.error': 'expired',
      'results.1.message': 'ttl_ms passed before the trade started',
      'results.2.status': 'ok',
      'results.2.retcode': 10019,
      'results.2.comment': 'No money',
    });
    terminal.send('res', { id: read.fields.get('id')!, status: 'ok', login: 5001234 });
    const [first, second, third] = await Promise.all(sends);
    expect([first!.status, first!.fields.get('retcode'), first!.fields.get('deal'), first!.fields.has('status')]).toEqual([
      'ok',
      '10009',
      '73001',
      false,
    ]);
    expect([second!.status, second!.error, second!.message, second!.fields.size]).toEqual([
      'error',
      'expired',
      'ttl_ms passed before the trade started',
      0,
    ]);
    expect([third!.status, third!.fields.get('retcode'), third!.fields.get('comment')]).toEqual(['ok', '10019', 'No money']);
    expect((await account).fields.get('login')).toBe('5001234');
  });

  it('sends more sends than a send_batch holds as a full batch and the rest in a slot of their own', async () => {
    const { server, port } = await startServer();
    const terminal = await welcomed(port, { v: '2,1' });
    const sends = Array.from({ length: 70 }, (_, index) =>
      server.call('acc_one', 'send', [...sendArgs('EURUSD'), ['magic', String(index)]], { deadlineMs: 2_000 }),
    );
    const batches = [await terminal.next(), await terminal.next()];
    expect(batches.map((frame) => [frame.fields.get('cmd'), frame.fields.get('legs')])).toEqual([
      ['send_batch', '64'],
      ['send_batch', '6'],
    ]);
    expect([batches[0]!.fields.get('legs.63.magic'), batches[1]!.fields.get('legs.0.magic')]).toEqual(['63', '64']);
    for (const frame of batches) {
      const count = Number(frame.fields.get('legs'));
      const fields: Record<string, string | number> = { id: frame.fields.get('id')!, status: 'ok', results: count };
      for (let index = 0; index < count; index += 1) {
        fields[`results.${index}.status`] = 'ok';
        fields[`results.${index}.order`] = Number(frame.fields.get(`legs.${index}.magic`)) + 1000;
      }
      terminal.send('res', fields);
    }
    const answers = await Promise.all(sends);
    expect(answers.map((answer) => answer.fields.get('order'))).toEqual(answers.map((_, index) => String(index + 1000)));
  });

  it('sends a lone send as a send, and every send as its own to an EA that offers v1 only', async () => {
    const { server, port } = await startServer();
    const modern = await welcomed(port, { v: '2,1' });
    const lone = server.call('acc_one', 'send', sendArgs('EURUSD'), { deadlineMs: 2_000 });
    const request = await modern.next();
    expect([request.fields.get('cmd'), request.fields.get('symbol')]).toEqual(['send', 'EURUSD']);
    modern.send('res', { id: request.fields.get('id')!, status: 'ok', retcode: 10009 });
    expect((await lone).fields.get('retcode')).toBe('10009');

    const older = await welcomed(port, { v: 1 });
    const sends = ['EURUSD', 'GBPUSD'].map((symbol) => server.call('acc_one', 'send', sendArgs(symbol), { deadlineMs: 2_000 }));
    const frames = [await older.next(), await older.next()];
    expect(frames.map((frame) => [frame.fields.get('cmd'), frame.fields.get('symbol')])).toEqual([
      ['send', 'EURUSD'],
      ['send', 'GBPUSD'],
    ]);
    for (const frame of frames) older.send('res', { id: frame.fields.get('id')!, status: 'ok', retcode: 10009 });
    expect((await Promise.all(sends)).map((answer) => answer.status)).toEqual(['ok', 'ok']);
  });

  it('ends the connection on an answer that does not hold every item, with each item unknown', async () => {
    const { server, port } = await startServer();
    const terminal = await welcomed(port, { v: '2,1' });
    const sends = ['EURUSD', 'GBPUSD'].map((symbol) => failure(server.call('acc_one', 'send', sendArgs(symbol), { deadlineMs: 2_000 })));
    const batch = await terminal.next();
    terminal.send('res', { id: batch.fields.get('id')!, status: 'ok', results: 1, 'results.0.status': 'ok', 'results.0.retcode': 10009 });
    const error = await terminal.next();
    expect([error.type, error.fields.get('code')]).toEqual(['error', 'malformed']);
    for (const failed of await Promise.all(sends)) expect([failed.code, failed.sent]).toEqual(['unknown', true]);
    await terminal.closed;
  });

  it('fails every item at the deadline and hands each item’s late answer to reconciliation', async () => {
    const { server, port, late } = await startServer();
    const terminal = await welcomed(port, { v: '2,1' });
    const sends = ['EURUSD', 'GBPUSD'].map((symbol) => failure(server.call('acc_one', 'send', sendArgs(symbol), { deadlineMs: 150 })));
    const batch = await terminal.next();
    for (const failed of await Promise.all(sends)) expect([failed.code, failed.sent]).toEqual(['deadline', true]);
    terminal.send('res', {
      id: batch.fields.get('id')!,
      status: 'ok',
      results: 2,
      'results.0.status': 'ok',
      'results.0.order': 91002,
      'results.1.status': 'ok',
      'results.1.order': 91003,
    });
    await expect.poll(() => late.length).toBe(2);
    expect(late.map((item) => [item.command, item.args.get('symbol'), item.answer.fields.get('order')])).toEqual([
      ['send', 'EURUSD', '91002'],
      ['send', 'GBPUSD', '91003'],
    ]);
  });
});
