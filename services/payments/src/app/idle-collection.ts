import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';

let exposedCollection: (() => void) | undefined;

/**
 * V8's full, atomic collection of this process's heap (`gc()`), exposed at run time when Node was not started
 * with --expose-gc. It pauses the event loop for as long as it marks what is alive.
 */
export function fullCollection(): () => void {
  if (!exposedCollection) {
    if (typeof globalThis.gc !== 'function') v8.setFlagsFromString('--expose-gc');
    exposedCollection = (globalThis.gc ?? vm.runInNewContext('gc')) as () => void;
  }
  return exposedCollection;
}

export interface IdleCollectionOptions {
  /** How often the event loop's utilisation is sampled. */
  checkEveryMs: number;
  /** Samples in a row at or below `idleUtilizationMax` before the process counts as idle. */
  idleChecks: number;
  /** The event loop's busy share (0 to 1) at or below which a sample counts as idle. */
  idleUtilizationMax: number;
  /** Heap growth since the last full collection below which an idle process is left alone. */
  growthBytesMin: number;
}

export const defaultIdleCollectionOptions: IdleCollectionOptions = {
  checkEveryMs: 100,
  idleChecks: 3,
  idleUtilizationMax: 0.02,
  growthBytesMin: 64 * 1024 * 1024,
};

/** What one idle collection did, for the log. */
export interface IdleCollectionReport {
  pauseMs: number;
  heapUsedBeforeBytes: number;
  heapUsedAfterBytes: number;
}

/** The decision alone, fed one sample at a time: tests drive it without a timer or a heap. */
export class IdleCollectionRule {
  private idleSamples = 0;
  private baselineBytes: number;

  constructor(
    private readonly options: Pick<IdleCollectionOptions, 'idleChecks' | 'idleUtilizationMax' | 'growthBytesMin'>,
    heapUsedBytes: number,
  ) {
    this.baselineBytes = heapUsedBytes;
  }

  /** Whether to collect now, given the last interval's utilisation and the heap's size. */
  sample(utilization: number, heapUsedBytes: number): boolean {
    this.idleSamples = utilization <= this.options.idleUtilizationMax ? this.idleSamples + 1 : 0;
    return this.idleSamples >= this.options.idleChecks && heapUsedBytes - this.baselineBytes >= this.options.growthBytesMin;
  }

  /** After a collection: growth counts from what it left, and idleness from now. */
  collected(heapUsedBytes: number): void {
    this.baselineBytes = heapUsedBytes;
    this.idleSamples = 0;
  }
}

/**
 * Runs V8's major collection while the process is idle instead of whenever its old generation fills. Under
 * sustained load payments fills its 1 GB old-space limit every one to two minutes (~6.5 MB/s promoted at 1,000
 * postbacks/s), and that collection marks and sweeps on helper threads for ~0.3 s of CPU and pauses 55-80 ms at
 * its end: on a machine whose cores the load already fills, every process stalls with it, the slowest second of
 * a burst. After a few idle samples, a heap that has grown since its last full collection is collected at once,
 * while nothing waits on it (an atomic collection: 60-270 ms on the benchmark VM, most of it marking what lives);
 * a burst that follows starts on a clean heap. Under unbroken load nothing changes. One utilisation sample per
 * interval; the timer does not keep the process alive.
 */
export function startIdleCollection(
  onCollected: (report: IdleCollectionReport) => void,
  options: IdleCollectionOptions = defaultIdleCollectionOptions,
  collect: () => void = fullCollection(),
): { stop(): void } {
  const rule = new IdleCollectionRule(options, v8.getHeapStatistics().used_heap_size);
  let previous = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const current = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(current, previous);
    previous = current;
    const heapUsedBeforeBytes = v8.getHeapStatistics().used_heap_size;
    if (!rule.sample(utilization, heapUsedBeforeBytes)) return;
    const startedMs = performance.now();
    collect();
    const pauseMs = performance.now() - startedMs;
    const heapUsedAfterBytes = v8.getHeapStatistics().used_heap_size;
    rule.collected(heapUsedAfterBytes);
    // The collection is not the load's work: the next sample measures from its end.
    previous = performance.eventLoopUtilization();
    onCollected({ pauseMs, heapUsedBeforeBytes, heapUsedAfterBytes });
  }, options.checkEveryMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
