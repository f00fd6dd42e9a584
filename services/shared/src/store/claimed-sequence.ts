import { AppError } from '../service/errors';
import { lastPresent } from './gallop';
import { LinkedMap } from '../cache/linked-map';

const headsMaxDefault = 100_000;
const attemptsMaxDefault = 8;

/**
 * Per-key sequences whose entries are documents `<key>:<n>`, each number claimed by an insert: the one linearisable
 * step FerretDB offers, and an `_id` walk every backend serves. The head of each key is kept in memory (bounded),
 * so concurrent claimers in one process get distinct numbers without a round trip; a number another process took
 * first is a duplicate key, after which the head is found again (galloping from the taken number) and the next
 * is claimed.
 */
export class ClaimedSequence {
  private readonly heads = new LinkedMap<string, number>();
  private readonly headsMax: number;
  private readonly attemptsMax: number;
  private readonly idOf: (key: string, number: number) => string;

  constructor(
    /** Whether the entry with this id exists. */
    private readonly exists: (id: string) => Promise<boolean>,
    options: {
      headsMax?: number;
      attemptsMax?: number;
      /** The id of number `n` (from 1) under `key`; `<key>:<n>` unless a layout counts otherwise (from 0, say). */
      idOf?: (key: string, number: number) => string;
    } = {},
  ) {
    this.headsMax = options.headsMax ?? headsMaxDefault;
    this.attemptsMax = options.attemptsMax ?? attemptsMaxDefault;
    this.idOf = options.idOf ?? ((key, number) => `${key}:${number}`);
  }

  /** The highest number this process knows taken under `key`, without asking the store; undefined when none. */
  knownHead(key: string): number | undefined {
    return this.heads.get(key);
  }

  /** The highest number taken under `key` (0 for none), galloping from the one last known. */
  async head(key: string): Promise<number> {
    const head = await this.findHead(key, this.heads.get(key) ?? 0);
    this.raise(key, head);
    return head;
  }

  /**
   * Claims the next number under `key`: `insert` writes entry `id` and answers true, or false when `id` was taken.
   * Answers the entry's id.
   */
  async claim(key: string, insert: (id: string, number: number) => Promise<boolean>): Promise<string> {
    for (let attempt = 0; attempt < this.attemptsMax; attempt += 1) {
      if (!this.heads.has(key)) this.raise(key, await this.findHead(key, 0));
      const number = (this.heads.get(key) ?? 0) + 1;
      this.heads.set(key, number);
      const id = this.idOf(key, number);
      let inserted: boolean;
      try {
        inserted = await insert(id, number);
      } catch (error) {
        // Whether it was written is unknown: forget the head, so the next claim finds it in the store again rather
        // than skip `number` and leave a gap (readers of a gapless sequence stop at the first one).
        if (this.heads.get(key) === number) this.heads.delete(key);
        throw error;
      }
      if (inserted) return id;
      this.raise(key, await this.findHead(key, number));
    }
    // Others keep taking the next number first: the store is busy, and the caller retries.
    throw new AppError('unavailable', `no number of ${key} could be claimed after ${this.attemptsMax} attempts; retry shortly`);
  }

  /** Records that `number` under `key` is taken (by a write the caller made without `claim`, such as a grouped insert). */
  advance(key: string, number: number): void {
    this.raise(key, number);
  }

  private findHead(key: string, from: number): Promise<number> {
    return lastPresent(from, (number) => this.exists(this.idOf(key, number)));
  }

  private raise(key: string, number: number): void {
    const current = this.heads.get(key);
    if (current !== undefined && number <= current) return;
    if (current === undefined && this.heads.size >= this.headsMax) this.heads.shift();
    this.heads.set(key, number);
  }
}
