import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { retcodeDescription } from '@mtx/shared/trading';
import { mt4ErrorToRetcode } from '../src/mt4-errors';
import { clientTag, tagOfComment, tradeComment } from '../src/bridge/client-tag';
import { requestProblem } from '../src/bridge/commands';
import { FrameReader } from '../src/bridge/frame-reader';
import { type AnswerFrame, type BridgeFrame, decodeFrame, encodeFrame, type RequestFrame } from '../src/bridge/frames';
import { decodeList, encodeList } from '../src/bridge/lists';
import { formatDecimal, parseDecimal } from '../src/bridge/numbers';
import { sendBatchRequest, splitBatchAnswer } from '../src/bridge/send-batch';
import { BridgeProtocolError, decodeLine, encodeLine, maxFrameBytes } from '../src/bridge/wire';

/**
 * The terminal bridge codec against docs/terminal-bridge.md: every frame type survives encode → bytes cut
 * anywhere → decode, every malformed or oversized input is refused with its code, and every example frame of
 * the document decodes and re-encodes to the same bytes, so the document and the code cannot drift apart.
 */

const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text);

function readAll(chunks: Uint8Array[], reader = new FrameReader()) {
  return chunks.flatMap((chunk) => reader.push(chunk)).map(decodeFrame);
}

function protocolError(action: () => unknown): BridgeProtocolError {
  try {
    action();
  } catch (error) {
    if (error instanceof BridgeProtocolError) return error;
    throw error;
  }
  throw new Error('expected a BridgeProtocolError');
}

// Any text, including the bytes the format escapes.
const anyText = fc.string({
  unit: fc.oneof(fc.constantFrom('\0', '\t', '\n', '\r', '%', '=', '~'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })),
  maxLength: 40,
});
const id = fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER });
const time = fc.integer({ min: 0, max: 4_000_000_000 });
const message = fc.string({
  unit: fc.oneof(fc.constantFrom('\t', '\n', '%'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })),
  maxLength: 60,
});
const fieldKey = fc
  .stringMatching(/^[a-z][a-z0-9_]{0,10}$/)
  .filter((key) => !['id', 'cmd', 'ttl_ms', 'status', 'error', 'message'].includes(key));
const fieldMap = fc.uniqueArray(fc.tuple(fieldKey, anyText), { selector: ([key]) => key, maxLength: 8 }).map((entries) => new Map(entries));

const frameArbitrary: fc.Arbitrary<BridgeFrame> = fc.oneof(
  fc.record({
    type: fc.constant('hello' as const),
    versions: fc.array(fc.integer({ min: 1, max: 999 }), { minLength: 1, maxLength: 3 }),
    platform: fc.constantFrom('mt4' as const, 'mt5' as const),
    login: id,
    server: fc.string({ maxLength: 64 }),
    eaVersion: fc.string({ maxLength: 32 }),
    terminalBuild: fc.integer({ min: 0, max: 999_999 }),
    token: fc.stringMatching(/^[A-Za-z0-9_-]{32,80}$/),
    serverTime: time,
    gmtTime: time,
  }),
  fc.record({
    type: fc.constant('welcome' as const),
    version: fc.integer({ min: 1, max: 999 }),
    connection: fc.string({ maxLength: 64 }),
    maxInFlight: fc.integer({ min: 1, max: 64 }),
    heartbeatMs: fc.integer({ min: 1000, max: 60_000 }),
    idleMs: fc.integer({ min: 3000, max: 180_000 }),
  }),
  fc.record({
    type: fc.constant('refuse' as const),
    reason: fc.constantFrom('bad_token' as const, 'unknown_login' as const, 'version' as const, 'unavailable' as const),
    message,
    versions: fc.array(fc.integer({ min: 1, max: 999 }), { minLength: 1, maxLength: 3 }),
  }),
  fc.record(
    {
      type: fc.constant('req' as const),
      id,
      command: fc.stringMatching(/^[a-z_]{1,32}$/),
      ttlMs: fc.integer({ min: 1, max: 600_000 }),
      args: fieldMap,
    },
    { requiredKeys: ['type', 'id', 'command', 'args'] },
  ),
  fc.record({ type: fc.constant('res' as const), id, status: fc.constant('ok' as const), message, fields: fieldMap }),
  fc.record({
    type: fc.constant('res' as const),
    id,
    status: fc.constant('error' as const),
    error: fc.constantFrom(
      'unsupported' as const,
      'bad_request' as const,
      'busy' as const,
      'expired' as const,
      'not_found' as const,
      'internal' as const,
    ),
    message,
    fields: fieldMap,
  }),
  fc.record(
    { type: fc.constant('hb' as const), serverTime: time, gmtTime: time, utcMs: fc.integer({ min: 0, max: 4_000_000_000_000 }) },
    { requiredKeys: ['type'] },
  ),
  fc.record({
    type: fc.constant('error' as const),
    code: fc.constantFrom('malformed' as const, 'frame_too_large' as const, 'duplicate_id' as const),
    message,
  }),
  fc.record({
    type: fc.constant('bye' as const),
    reason: fc.constantFrom('shutdown' as const, 'idle' as const, 'deinit' as const),
    message,
  }),
);

describe('bridge frames', () => {
  it('round-trips every frame type through bytes cut at any points', () => {
    fc.assert(
      fc.property(fc.array(frameArbitrary, { minLength: 1, maxLength: 5 }), fc.array(fc.nat(), { maxLength: 6 }), (frames, cuts) => {
        const stream = Buffer.concat(frames.map(encodeFrame));
        const points = [...new Set(cuts.map((cut) => cut % (stream.length + 1)))].sort((a, b) => a - b);
        const chunks = [0, ...points].map((start, index) => stream.subarray(start, points[index] ?? stream.length));
        expect(readAll(chunks)).toEqual(frames);
      }),
      { numRuns: 300 },
    );
  });

  it('reads a stream fed one byte at a time', () => {
    const frame: BridgeFrame = { type: 'res', id: 4, status: 'ok', message: 'é\tß', fields: new Map([['comment', '50% €~tag']]) };
    const stream = encodeFrame(frame);
    const reader = new FrameReader();
    const frames = [...stream].flatMap((byte) => reader.push(Uint8Array.of(byte)));
    expect(frames.map(decodeFrame)).toEqual([frame]);
    expect(reader.bufferedBytes).toBe(0);
  });

  it('escapes exactly NUL, TAB, LF, CR and % in values', () => {
    const line = encodeLine('req', [['comment', 'a\0b\tc\nd\re%f=g~h é']]);
    expect(new TextDecoder().decode(line)).toBe('req\tcomment=a%00b%09c%0Ad%0De%25f=g~h é\n');
    expect(decodeLine(line.subarray(0, line.length - 1)).fields.get('comment')).toBe('a\0b\tc\nd\re%f=g~h é');
    expect(decodeLine(bytes('hb\tx=%c3%a9%3D')).fields.get('x')).toBe('é=');
  });

  it.each([
    ['an empty line', ''],
    ['a bad frame type', 'Hello\tv=1'],
    ['a field without =', 'hb\tserver_time'],
    ['a bad key', 'hb\tServer=1'],
    ['a repeated key', 'hb\tutc_ms=1\tutc_ms=2'],
    ['a % without hex digits', 'res\tid=1\tstatus=ok\tcomment=100%'],
    ['a % with one hex digit', 'res\tid=1\tstatus=ok\tcomment=%4'],
    ['escaped bytes that are not UTF-8', 'res\tid=1\tstatus=ok\tcomment=%FF'],
    ['a raw CR', 'hb\tutc_ms=1\r'],
    ['a raw NUL', 'hb\tx=a\0b'],
  ])('refuses %s as malformed', (_, line) => {
    expect(protocolError(() => new FrameReader().push(bytes(`${line}\n`))).code).toBe('malformed');
  });

  it('refuses bytes that are not UTF-8', () => {
    expect(protocolError(() => new FrameReader().push(Uint8Array.of(0x68, 0x62, 0x09, 0x78, 0x3d, 0xc3, 0x28, 0x0a))).code).toBe(
      'malformed',
    );
  });

  it.each([
    ['hello without token', 'hello\tv=1\tplatform=mt5\tlogin=1\tserver=S\tea=1\tbuild=1\tserver_time=0\tgmt_time=0'],
    ['hello with a short token', 'hello\tv=1\tplatform=mt5\tlogin=1\tserver=S\tea=1\tbuild=1\ttoken=short\tserver_time=0\tgmt_time=0'],
    ['hello for mt6', `hello\tv=1\tplatform=mt6\tlogin=1\tserver=S\tea=1\tbuild=1\ttoken=${'a'.repeat(32)}\tserver_time=0\tgmt_time=0`],
    [
      'hello with login 0',
      `hello\tv=1\tplatform=mt4\tlogin=0\tserver=S\tea=1\tbuild=1\ttoken=${'a'.repeat(32)}\tserver_time=0\tgmt_time=0`,
    ],
    ['a request with id 0', 'req\tid=0\tcmd=account'],
    ['a request without cmd', 'req\tid=1'],
    ['a request with ttl_ms past its bound', 'req\tid=1\tcmd=send\tttl_ms=600001'],
    ['an id in exponent form', 'req\tid=1e3\tcmd=account'],
    ['an id past 2^53', 'req\tid=9007199254740993\tcmd=account'],
    ['an answer with an unknown status', 'res\tid=1\tstatus=maybe'],
    ['an error answer without its error', 'res\tid=1\tstatus=error'],
    ['an ok answer whose MT4 error number is not a number', 'res\tid=1\tstatus=ok\terror=busy'],
    ['an error answer with an unknown error', 'res\tid=1\tstatus=error\terror=nope'],
    ['welcome with max_inflight 0', 'welcome\tv=1\tconnection=c\tmax_inflight=0\thb_ms=10000\tidle_ms=30000'],
    ['a message past 1024 characters', `bye\treason=idle\tmessage=${'x'.repeat(1025)}`],
    ['a heartbeat with a negative time', 'hb\tserver_time=-5'],
  ])('refuses %s', (_, line) => {
    expect(protocolError(() => readAll([bytes(`${line}\n`)])).code).toBe('malformed');
  });

  it("keeps an ok answer's error as a result: the MT4 EA's error number, written back as read", () => {
    const [answer] = readAll([bytes('res\tid=3\tstatus=ok\terror=131\tticket=-1\n')]);
    expect(answer).toEqual({
      type: 'res',
      id: 3,
      status: 'ok',
      message: '',
      fields: new Map([
        ['error', '131'],
        ['ticket', '-1'],
      ]),
    });
    expect(readAll([encodeFrame(answer as AnswerFrame)])).toEqual([answer]);
  });

  it('ignores unknown fields and answers unknown frame types as unknown', () => {
    expect(readAll([bytes('hb\tutc_ms=5\tfuture_field=x\nquote\tsymbol=EURUSD\n')])).toEqual([
      { type: 'hb', utcMs: 5 },
      { type: 'unknown', name: 'quote' },
    ]);
  });

  it('fails an oversized line as soon as the bound is reached, before its LF', () => {
    const reader = new FrameReader();
    const head = bytes(`res\tid=1\tstatus=ok\tdata=${'x'.repeat(maxFrameBytes - 30)}`);
    expect(reader.push(head)).toEqual([]);
    expect(protocolError(() => reader.push(bytes('y'.repeat(10)))).code).toBe('frame_too_large');
    // A failed reader stays failed: the connection is to be closed.
    expect(protocolError(() => reader.push(bytes('hb\n'))).code).toBe('frame_too_large');
  });

  it('accepts a frame of exactly the bound and refuses one byte more', () => {
    const exact = (extra: number) => bytes(`res\tid=1\tstatus=ok\tdata=${'x'.repeat(maxFrameBytes - 25 + extra)}\n`);
    expect(exact(0).length).toBe(maxFrameBytes);
    expect(new FrameReader().push(exact(0))).toHaveLength(1);
    expect(protocolError(() => new FrameReader().push(exact(1))).code).toBe('frame_too_large');
    expect(protocolError(() => encodeLine('res', [['data', 'x'.repeat(maxFrameBytes)]])).code).toBe('frame_too_large');
  });

  it('holds no more than the bound while a line is incomplete, with a smaller bound too', () => {
    const reader = new FrameReader(64);
    expect(reader.push(bytes('hb\tutc_ms=1\nhb\tutc_ms='))).toHaveLength(1);
    expect(reader.bufferedBytes).toBe(10);
    expect(protocolError(() => reader.push(bytes('1'.repeat(60)))).code).toBe('frame_too_large');
  });
});

describe('bridge values', () => {
  it('writes decimals without exponent and reads them back exactly', () => {
    fc.assert(
      fc.property(
        fc
          .double({ noNaN: true, noDefaultInfinity: true, min: -1e15, max: 1e15 })
          .filter((value) => value === 0 || Math.abs(value) >= 1e-12),
        (value) => {
          const text = formatDecimal(value);
          expect(text).not.toMatch(/e/i);
          expect(parseDecimal(text, 'x')).toBe(value === 0 ? 0 : value);
        },
      ),
      { numRuns: 500 },
    );
    expect(formatDecimal(1e-7)).toBe('0.0000001');
    expect(formatDecimal(2.5e21)).toBe('2500000000000000000000');
    expect(() => parseDecimal('1e5', 'volume')).toThrow(BridgeProtocolError);
    expect(() => parseDecimal('1,5', 'volume')).toThrow(BridgeProtocolError);
  });

  it('round-trips lists and refuses indices past the count', () => {
    fc.assert(
      fc.property(fc.array(fieldMap, { maxLength: 20 }), (items) => {
        const fields = new Map(encodeList('positions', items));
        expect(decodeList(fields, 'positions')).toEqual(items);
      }),
    );
    expect(
      protocolError(() =>
        decodeList(
          new Map([
            ['orders', '1'],
            ['orders.1.ticket', '5'],
          ]),
          'orders',
        ),
      ).message,
    ).toMatch(/past its count/);
    expect(
      protocolError(() =>
        decodeList(
          new Map([
            ['orders', '1'],
            ['orders.0', '5'],
          ]),
          'orders',
        ),
      ).code,
    ).toBe('malformed');
    expect(protocolError(() => decodeList(new Map([['orders', '501']]), 'orders')).code).toBe('malformed');
    expect(() =>
      encodeList(
        'orders',
        Array.from({ length: 501 }, () => new Map()),
      ),
    ).toThrow(RangeError);
  });

  it('puts an 11-character tag at the end of a comment of at most 31 characters', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), fc.string({ minLength: 1, maxLength: 40 }), (customer, clientId) => {
        const comment = tradeComment(customer, clientId);
        expect([...comment].length).toBeLessThanOrEqual(31);
        expect(tagOfComment(comment)).toBe(clientTag(clientId));
        expect(comment.startsWith([...customer.replaceAll('~', '-')].slice(0, 20).join(''))).toBe(true);
      }),
    );
    expect(clientTag('a')).not.toBe(clientTag('b'));
    expect(tagOfComment('from #123')).toBeUndefined();
  });

  it('checks a request against the command table of its platform', () => {
    const request = (command: string, args: Record<string, string>, ttlMs?: number): RequestFrame => ({
      type: 'req',
      id: 1,
      command,
      args: new Map(Object.entries(args)),
      ...(ttlMs ? { ttlMs } : {}),
    });
    expect(requestProblem(request('quote', {}), 'mt5')?.error).toBe('unsupported');
    expect(requestProblem(request('send', { action: '1' }), 'mt5')?.message).toMatch(/ttl_ms/);
    expect(requestProblem(request('send', { action: '1', volume: '0.1' }, 5000), 'mt5')).toBeUndefined();
    expect(requestProblem(request('send', { action: '1' }, 5000), 'mt4')?.message).toMatch(/needs symbol/);
    expect(requestProblem(request('close', { ticket: 'abc' }, 5000), 'mt4')?.error).toBe('bad_request');
    expect(requestProblem(request('account', { extra: 'ignored' }), 'mt4')).toBeUndefined();
  });
});

describe('docs/terminal-bridge.md', () => {
  const document = fs.readFileSync(path.join(__dirname, '../../../docs/terminal-bridge.md'), 'utf8');
  const blocks = [...document.matchAll(/```bridge-(ea|connector)\n([\s\S]*?)```/g)].map((match) => ({
    sender: match[1]!,
    text: match[2]!,
  }));

  it('holds example frames from both sides', () => {
    expect(blocks.filter((block) => block.sender === 'ea').length).toBeGreaterThanOrEqual(4);
    expect(blocks.filter((block) => block.sender === 'connector').length).toBeGreaterThanOrEqual(4);
  });

  it('shows only frames the codec decodes, byte for byte as it would write them', () => {
    const seen = new Set<string>();
    for (const block of blocks) {
      const frames = readAll([bytes(block.text)]);
      expect(frames.length).toBe(block.text.split('\n').length - 1);
      const reencoded = Buffer.concat(frames.map((frame) => encodeFrame(frame as BridgeFrame))).toString('utf8');
      expect(reencoded).toBe(block.text);
      for (const frame of frames) {
        seen.add(frame.type);
        const fromEa = ['hello', 'res'].includes(frame.type);
        const fromConnector = ['welcome', 'refuse', 'req'].includes(frame.type);
        if (fromEa) expect(block.sender).toBe('ea');
        if (fromConnector) expect(block.sender).toBe('connector');
        if (frame.type === 'req' && frame.command !== 'quote') expect(requestProblem(frame, 'mt5')).toBeUndefined();
      }
    }
    expect([...seen].sort()).toEqual(['bye', 'error', 'hb', 'hello', 'refuse', 'req', 'res', 'welcome']);
  });

  it('shows a send_batch the call table writes and an answer it splits into its items', () => {
    const frames = blocks.flatMap((block) => readAll([bytes(block.text)]));
    const request = frames.find((frame) => frame.type === 'req' && frame.command === 'send_batch') as RequestFrame;
    const items = [0, 1].map(
      (index) =>
        new Map([...request.args].filter(([key]) => key.startsWith(`legs.${index}.`)).map(([key, value]) => [key.slice(7), value])),
    );
    expect(encodeFrame(sendBatchRequest(request.id, request.ttlMs!, items))).toEqual(encodeFrame(request));
    const answer = frames.find((frame) => frame.type === 'res' && frame.id === request.id) as AnswerFrame;
    const [bought, refused] = splitBatchAnswer(answer, 2);
    expect([bought!.status, bought!.fields.get('retcode'), bought!.fields.get('order')]).toEqual(['ok', '10009', '91003']);
    expect([refused!.status, refused!.fields.get('retcode'), refused!.fields.get('comment')]).toEqual(['ok', '10015', 'Invalid price']);
    expect(protocolError(() => splitBatchAnswer(answer, 3)).code).toBe('malformed');
  });

  it('shows the tag of the example client id as the codec computes it', () => {
    expect(document).toContain(`\`bat_4k2m9x7q1z0p3w5r8t6y-0\` has tag \`${clientTag('bat_4k2m9x7q1z0p3w5r8t6y-0')}\``);
  });

  it('maps MT4 errors to retcodes as the connector does', () => {
    const rows = [...document.matchAll(/^\| +(\d+) +\| +ERR_\w+ +\| +(\d+) +\| +(TRADE_RETCODE_\w+) +\|$/gm)];
    expect(rows.length).toBeGreaterThanOrEqual(30);
    for (const [, error, code, name] of rows) {
      expect(mt4ErrorToRetcode(Number(error))).toBe(Number(code));
      expect(retcodeDescription(Number(code))).toBe(name);
    }
  });
});
