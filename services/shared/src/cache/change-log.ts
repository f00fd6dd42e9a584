import { LinkedMap } from './linked-map';

/**
 * When each key last changed, as a monotonic mark (a counter, or performance.now()), for caches that must not
 * keep an answer loaded before a change of its key even if the load ends after it. Bounded: a key pushed out of
 * the log is reported as changed as late as the latest mark forgotten, which can only make a cache distrust an
 * answer it could have kept, never the reverse.
 */
export class ChangeLog {
  // Oldest change first (a LinkedMap: a full plain Map finds its oldest entry slowly, see there).
  private readonly marks = new LinkedMap<string, number>();
  private forgottenMax = Number.NEGATIVE_INFINITY;

  constructor(private readonly entriesMax: number) {}

  note(key: string, mark: number): void {
    this.marks.delete(key);
    this.marks.set(key, mark);
    while (this.marks.size > Math.max(this.entriesMax, 1)) {
      const [, oldestMark] = this.marks.shift()!;
      this.forgottenMax = Math.max(this.forgottenMax, oldestMark);
    }
  }

  /** Every key counts as changed at `mark` (what was missed is unknown). */
  noteAll(mark: number): void {
    this.marks.clear();
    this.forgottenMax = mark;
  }

  lastChange(key: string): number {
    return this.marks.get(key) ?? this.forgottenMax;
  }
}
