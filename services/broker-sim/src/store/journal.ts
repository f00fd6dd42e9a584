import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '@mtx/shared/logger';
import type { Effect } from '../domain/engine';

export interface AccountDocument {
  _id: string;
  server: string;
  login: string;
  platform: 'mt4' | 'mt5';
  password_hash: string;
  password_salt: string;
  initial_balance: number;
  leverage: number;
  margin_mode: 'hedging' | 'netting';
  created_at: Date;
}

/** One operation's effects on one account, in order; `_id` is `<account>:<sequence>`. */
export interface EventDocument {
  _id: string;
  account: string;
  seq: number;
  at: Date;
  effects: Effect[];
}

type JournalLine =
  | { account: Omit<AccountDocument, 'created_at'> & { created_at: string } }
  | { event: Omit<EventDocument, 'at'> & { at: string } };

interface Pending {
  line: string;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export interface JournalOptions {
  /** Lines waiting for the disk at most; past it an operation is refused (nothing executed), never queued. */
  queueMax?: number;
  /** Whether appends are written in the caller's turn; by default, when the file is on a memory filesystem. */
  writeInTurn?: boolean;
}

/**
 * Where the system has O_DSYNC the journal is opened with it, so a write returns once its data is on disk: one
 * call per group commit instead of a write and an fdatasync, each a trip to the thread pool. An emulated
 * terminal carries out its trades one by one, each answered after its line is durable, so this trip is in every
 * trade's latency.
 */
const dataSyncFlag: number | undefined = fs.constants.O_DSYNC;
const appendFlags = dataSyncFlag === undefined ? 'a' : fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | dataSyncFlag;

/**
 * A journal on a memory filesystem (tmpfs, as `bench:execution` keeps it) is written in the caller's turn: the
 * write is a copy into memory, a few microseconds, while a group commit costs each trade a trip to the thread pool
 * and a turn of the event loop. A terminal carries out its trades one after another, so that turn was in every
 * trade's latency: a zero-latency trade server answered one trade per terminal per turn.
 */
const tmpfsMagic = 0x01021994;

function onMemoryFilesystem(file: string): boolean {
  try {
    return fs.statfsSync(path.dirname(file)).type === tmpfsMagic;
  } catch {
    return false;
  }
}

/**
 * broker-sim's durable state: an append-only file of JSON lines (accounts, then each operation's effects),
 * replayed in order at start. broker-sim stands in for a broker's trade server, so it keeps its books itself
 * and never spends the project's store (docs/architecture.md, "Storage rules"). Writes are group-committed: the operations of one event-loop
 * turn become one write and one fdatasync, and each caller answers only once its line is on disk, so a restart
 * keeps every position and ticket it ever reported. A torn last line (a crash mid-write) is dropped at load.
 */
export class FileJournal {
  private queue: Pending[] = [];
  private flushing: Promise<void> | undefined;
  private closed = false;
  private failing = false;
  private readonly queueMax: number;

  private handle: fs.promises.FileHandle | undefined;
  private writeInTurn = false;
  /** What the file held when loaded: every account, then every operation's effects, in order. */
  readonly accounts: AccountDocument[] = [];
  readonly events: EventDocument[] = [];

  /** The journal at `file`, not read yet: nothing touches the file until `load`. */
  constructor(
    readonly file: string,
    private readonly logger: Logger,
    private readonly options: JournalOptions = {},
  ) {
    this.queueMax = options.queueMax ?? 100_000;
  }

  /** Opens (or creates) the journal and reads what it holds. */
  static async open(file: string, logger: Logger, options: JournalOptions = {}): Promise<FileJournal> {
    const journal = new FileJournal(file, logger, options);
    await journal.load();
    return journal;
  }

  /** Reads what the file holds (dropping a torn last line) and opens it for appending. */
  async load(): Promise<void> {
    if (this.handle) return;
    const file = this.file;
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    const content = fs.existsSync(file) ? await fs.promises.readFile(file, 'utf8') : '';
    let goodLength = 0;
    let offset = 0;
    while (offset < content.length) {
      const end = content.indexOf('\n', offset);
      if (end < 0) break;
      const text = content.slice(offset, end);
      let line: JournalLine;
      try {
        line = JSON.parse(text) as JournalLine;
      } catch {
        break;
      }
      if ('account' in line) this.accounts.push({ ...line.account, created_at: new Date(line.account.created_at) });
      else this.events.push({ ...line.event, at: new Date(line.event.at) });
      offset = end + 1;
      goodLength = Buffer.byteLength(content.slice(0, offset));
    }
    const size = Buffer.byteLength(content);
    if (goodLength < size) {
      this.logger.warn({ file, dropped_bytes: size - goodLength }, 'journal ended in a torn line (a crash mid-write); dropped it');
      await fs.promises.truncate(file, goodLength);
    }
    this.handle = await fs.promises.open(file, appendFlags);
    this.writeInTurn = this.options.writeInTurn ?? onMemoryFilesystem(file);
  }

  /** False while writes are failing (the disk is full or gone): readiness reports it. */
  get healthy(): boolean {
    return this.handle !== undefined && !this.closed && !this.failing;
  }

  appendAccount(account: AccountDocument): Promise<void> {
    return this.enqueue(JSON.stringify({ account }));
  }

  append(event: EventDocument): Promise<void> {
    return this.enqueue(JSON.stringify({ event }));
  }

  private enqueue(line: string): Promise<void> {
    if (this.closed) return Promise.reject(new Error('journal is closed'));
    if (!this.handle) return Promise.reject(new Error('journal is not loaded'));
    if (this.queue.length >= this.queueMax)
      return Promise.reject(new Error(`${this.queueMax} journal lines are waiting for the disk; not executed`));
    // In memory, and nothing queued before it: written now, in order. A failure leaves it to the queue's retries.
    if (this.writeInTurn && !this.flushing && !this.failing) {
      try {
        const bytes = Buffer.from(`${line}\n`);
        for (let written = 0; written < bytes.length; ) written += fs.writeSync(this.handle.fd, bytes, written);
        return Promise.resolve();
      } catch (error) {
        this.logger.warn({ err: error }, 'journal write in turn failed; queued for retry');
      }
    }
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ line: `${line}\n`, resolve, reject });
      if (!this.flushing) this.flushing = this.flushLoop().finally(() => (this.flushing = undefined));
    });
  }

  private async flushLoop(): Promise<void> {
    // Let the operations of this event-loop turn join the same write.
    await new Promise((resolve) => setImmediate(resolve));
    let failures = 0;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.queue.length);
      try {
        await this.handle!.write(batch.map((item) => item.line).join(''));
        if (dataSyncFlag === undefined) await this.handle!.datasync();
        this.failing = false;
        failures = 0;
        for (const item of batch) item.resolve();
      } catch (error) {
        // Whether a failed write reached the file is unknown: the lines go again in front (replay is by
        // account sequence, so a line written twice is applied once).
        this.queue.unshift(...batch);
        this.failing = true;
        failures += 1;
        this.logger.error({ err: error, failures }, 'journal write failed; retrying');
        if (this.closed) {
          for (const item of this.queue.splice(0)) item.reject(error);
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(50 * 2 ** failures, 2_000)));
      }
    }
  }

  /** Waits until everything appended so far is durable. */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /** Refuses new lines, writes what is queued (gives up on it if the disk is failing), and closes the file. */
  async close(): Promise<void> {
    this.closed = true;
    await this.drain();
    await this.handle?.close();
  }
}
