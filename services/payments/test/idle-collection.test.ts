import { PerformanceObserver, constants } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { IdleCollectionRule, startIdleCollection, type IdleCollectionReport } from '../src/app/idle-collection';

const megabyte = 1024 * 1024;
const rule = () => new IdleCollectionRule({ idleChecks: 3, idleUtilizationMax: 0.02, growthBytesMin: 64 * megabyte }, 100 * megabyte);

describe('IdleCollectionRule', () => {
  it('collects only after enough idle samples in a row, once the heap has grown enough', () => {
    const decide = rule();
    expect(decide.sample(0.01, 200 * megabyte)).toBe(false);
    expect(decide.sample(0, 200 * megabyte)).toBe(false);
    expect(decide.sample(0.02, 200 * megabyte)).toBe(true);
  });

  it('starts counting again after a busy sample', () => {
    const decide = rule();
    decide.sample(0, 200 * megabyte);
    decide.sample(0, 200 * megabyte);
    expect(decide.sample(0.5, 200 * megabyte)).toBe(false);
    expect(decide.sample(0, 200 * megabyte)).toBe(false);
    expect(decide.sample(0, 200 * megabyte)).toBe(false);
    expect(decide.sample(0, 200 * megabyte)).toBe(true);
  });

  it('leaves an idle heap alone until it has grown by the set amount since the last collection', () => {
    const decide = rule();
    for (let sample = 0; sample < 10; sample++) expect(decide.sample(0, 163 * megabyte)).toBe(false);
    expect(decide.sample(0, 164 * megabyte)).toBe(true);
    decide.collected(120 * megabyte);
    for (let sample = 0; sample < 10; sample++) expect(decide.sample(0, 183 * megabyte)).toBe(false);
    expect(decide.sample(0, 184 * megabyte)).toBe(true);
  });
});

describe('startIdleCollection', () => {
  it('collects the heap in full once the event loop is idle, and frees what died', async () => {
    const majors: number[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries())
        if ((entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors.push(entry.duration);
    });
    observer.observe({ entryTypes: ['gc'] });
    const reports: IdleCollectionReport[] = [];
    const collection = startIdleCollection((report) => reports.push(report), {
      checkEveryMs: 20,
      idleChecks: 3,
      idleUtilizationMax: 0.2,
      growthBytesMin: 48 * megabyte,
    });
    try {
      // 96 MB of arrays, kept past a few scavenges so they reach the old generation, then dropped.
      let garbage: number[][] | undefined = Array.from({ length: 96 }, () => new Array<number>(128 * 1024).fill(1.5));
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(garbage.length).toBe(96);
      garbage = undefined;
      const deadlineMs = Date.now() + 5_000;
      while (reports.length === 0 && Date.now() < deadlineMs) await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      collection.stop();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    observer.disconnect();
    expect(reports.length).toBe(1);
    const [report] = reports;
    expect(report!.heapUsedBeforeBytes - report!.heapUsedAfterBytes).toBeGreaterThan(48 * megabyte);
    expect(report!.pauseMs).toBeGreaterThan(0);
    expect(majors.length).toBeGreaterThanOrEqual(1);
  });

  it('waits while the event loop is busy and collects soon after it goes idle', async () => {
    let collections = 0;
    const collection = startIdleCollection(
      () => undefined,
      { checkEveryMs: 20, idleChecks: 3, idleUtilizationMax: 0.2, growthBytesMin: 0 },
      () => {
        collections += 1;
      },
    );
    try {
      // Busy: 15 ms of work every 20 ms for 400 ms.
      const busyUntilMs = Date.now() + 400;
      while (Date.now() < busyUntilMs) {
        const workUntilMs = Date.now() + 15;
        while (Date.now() < workUntilMs);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(collections).toBe(0);
      const deadlineMs = Date.now() + 2_000;
      while (collections === 0 && Date.now() < deadlineMs) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(collections).toBe(1);
    } finally {
      collection.stop();
    }
  });
});
