import net from 'node:net';
import tls from 'node:tls';
import { FrameReader } from '../src/bridge/frame-reader';
import { encodeLine, type RawFrame } from '../src/bridge/wire';

/**
 * A MetaTrader terminal's EA as the test scripts it, written from docs/terminal-bridge.md: it dials the
 * listener, sends frames line by line and hands back what the connector sends in order. Raw frames on both
 * sides, so a test can send what a real EA never would (a malformed line, an answer to an id never sent) and
 * read welcome values shortened below the protocol's bounds for speed.
 */
export class ScriptedTerminal {
  private readonly reader = new FrameReader();
  private readonly received: RawFrame[] = [];
  private waiter: (() => void) | undefined;
  private ended = false;
  readonly closed: Promise<void>;

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.received.push(...this.reader.push(chunk));
      this.waiter?.();
    });
    socket.on('error', () => undefined);
    this.closed = new Promise((resolve) =>
      socket.on('close', () => {
        this.ended = true;
        this.waiter?.();
        resolve();
      }),
    );
  }

  /** `halfOpen`: the EA keeps its end open after the connector's FIN, as a hung terminal would. */
  static connect(port: number, secure?: { ca: Buffer; servername: string }, halfOpen = false): Promise<ScriptedTerminal> {
    return new Promise((resolve, reject) => {
      const socket = secure
        ? tls.connect({ port, host: '127.0.0.1', ca: secure.ca, servername: secure.servername }, () =>
            resolve(new ScriptedTerminal(socket)),
          )
        : net.connect({ port, host: '127.0.0.1', allowHalfOpen: halfOpen }, () => resolve(new ScriptedTerminal(socket)));
      socket.once('error', reject);
    });
  }

  send(type: string, fields: Record<string, string | number> = {}): void {
    this.socket.write(
      encodeLine(
        type,
        Object.entries(fields).map(([key, value]) => [key, String(value)] as const),
      ),
    );
  }

  sendBytes(bytes: string | Uint8Array): void {
    this.socket.write(bytes);
  }

  hello(fields: Record<string, string | number> = {}): void {
    this.send('hello', {
      v: 1,
      platform: 'mt5',
      login: 5001234,
      server: 'Demo-Broker-Server',
      ea: '1.0.0',
      build: 4410,
      token: goodToken,
      server_time: 1767261600,
      gmt_time: 1767254400,
      ...fields,
    });
  }

  /** The next frame the connector sent, skipping heartbeats unless asked for; fails after `timeoutMs`. */
  async next(options: { heartbeats?: boolean; timeoutMs?: number } = {}): Promise<RawFrame> {
    const deadline = Date.now() + (options.timeoutMs ?? 2_000);
    for (;;) {
      const index = this.received.findIndex((frame) => options.heartbeats || frame.type !== 'hb');
      if (index >= 0) return this.received.splice(index, 1)[0]!;
      if (this.ended) throw new Error('the connection closed with no further frame');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('no frame in time');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** Every frame received so far and not yet taken. */
  pending(): RawFrame[] {
    return [...this.received];
  }

  get isClosed(): boolean {
    return this.ended;
  }

  destroy(): void {
    this.socket.destroy();
  }
}

export const goodToken = 'tk_9f3Kq2LmX8vB7nR4tY6wZ1aC5dE0gH2j';
