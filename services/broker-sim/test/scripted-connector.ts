import net from 'node:net';
import tls from 'node:tls';
import { expect } from 'vitest';

/**
 * A connector scripted by a test: a TCP (or TLS) server that hands out the connections it accepts, reads
 * their frames and writes the test's own (docs/terminal-bridge.md).
 */

export interface Received {
  type: string;
  fields: Record<string, string>;
}

/** The test's own reading of a frame line (the values here carry no escapes). */
function parse(line: string): Received {
  const [type, ...parts] = line.split('\t');
  const fields: Record<string, string> = {};
  for (const part of parts) {
    const equals = part.indexOf('=');
    fields[part.slice(0, equals)] = part.slice(equals + 1);
  }
  return { type: type!, fields };
}

/** One connection the scripted connector accepted: frames read in order, and a writer. */
export class ScriptedConnection {
  private readonly frames: Received[] = [];
  private waiting: ((frame: Received) => void) | undefined;
  private held = '';
  closed = false;
  private nextId = 1;

  constructor(readonly socket: net.Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.held += chunk;
      for (let end = this.held.indexOf('\n'); end >= 0; end = this.held.indexOf('\n')) {
        const frame = parse(this.held.slice(0, end));
        this.held = this.held.slice(end + 1);
        if (this.waiting) {
          const resolve = this.waiting;
          this.waiting = undefined;
          resolve(frame);
        } else this.frames.push(frame);
      }
    });
    socket.on('close', () => (this.closed = true));
    socket.on('error', () => undefined);
  }

  next(timeoutMs = 5000): Promise<Received> {
    const ready = this.frames.shift();
    if (ready) return Promise.resolve(ready);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no frame in time')), timeoutMs);
      this.waiting = (frame) => {
        clearTimeout(timer);
        resolve(frame);
      };
    });
  }

  write(line: string): void {
    this.socket.write(`${line}\n`);
  }

  welcome(maxInflight = 8, heartbeatMs = 10_000, version = 1): void {
    this.write(`welcome\tv=${version}\tconnection=c-test\tmax_inflight=${maxInflight}\thb_ms=${heartbeatMs}\tidle_ms=30000`);
  }

  send(cmd: string, args: Record<string, string | number> = {}): number {
    const id = this.nextId++;
    const fields = Object.entries(args).map(([key, value]) => `\t${key}=${value}`);
    this.write(`req\tid=${id}\tcmd=${cmd}${fields.join('')}`);
    return id;
  }

  /** Sends a request and reads the answer, which must carry its id. */
  async ask(cmd: string, args: Record<string, string | number> = {}): Promise<Record<string, string>> {
    const id = this.send(cmd, args);
    const answer = await this.next();
    expect(answer.type, JSON.stringify(answer.fields)).toBe('res');
    expect(answer.fields.id).toBe(String(id));
    return answer.fields;
  }

  async closedWithin(timeoutMs: number): Promise<boolean> {
    const until = Date.now() + timeoutMs;
    while (!this.closed && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    return this.closed;
  }
}

/** A TCP server standing in for a connector; hands out the connections it accepts. */
export class ScriptedConnector {
  private readonly server: net.Server;
  private readonly pending: ScriptedConnection[] = [];
  private waiting: ((connection: ScriptedConnection) => void) | undefined;
  address = '';

  /** With `secure`, a TLS listener presenting that key and certificate. */
  constructor(secure?: { key: string; cert: string }) {
    const accept = (socket: net.Socket) => this.accepted(new ScriptedConnection(socket));
    this.server = secure ? tls.createServer(secure, accept) : net.createServer(accept);
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.address = `127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
  }

  private accepted(connection: ScriptedConnection): void {
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve(connection);
    } else this.pending.push(connection);
  }

  connection(): Promise<ScriptedConnection> {
    const ready = this.pending.shift();
    if (ready) return Promise.resolve(ready);
    return new Promise((resolve) => (this.waiting = resolve));
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.emit('close');
    });
  }
}
