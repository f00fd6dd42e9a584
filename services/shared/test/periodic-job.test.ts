import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/telemetry/logger';
import { PeriodicJob } from '../src/service/periodic-job';

function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger('test', { level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

const sleep = (durationMs: number) => new Promise((resolve) => setTimeout(resolve, durationMs));

describe('PeriodicJob', () => {
  it('runs one pass at a time, the next only after the previous ended', async () => {
    const { logger } = capturingLogger();
    let inFlight = 0;
    let overlapped = false;
    let passes = 0;
    const job = new PeriodicJob({
      name: 'slow',
      intervalMs: 1,
      firstDelayMs: 0,
      logger,
      work: async () => {
        inFlight += 1;
        if (inFlight > 1) overlapped = true;
        await sleep(15);
        inFlight -= 1;
        passes += 1;
      },
    });
    job.start();
    await sleep(120);
    await job.stop();
    expect(overlapped).toBe(false);
    expect(passes).toBeGreaterThanOrEqual(2);
  });

  it('logs a failed pass with its name and keeps the schedule', async () => {
    const { logger, lines } = capturingLogger();
    let passes = 0;
    const job = new PeriodicJob({
      name: 'flaky',
      intervalMs: 5,
      firstDelayMs: 0,
      logger,
      work: async () => {
        passes += 1;
        if (passes === 1) throw new Error('store away');
      },
    });
    job.start();
    await sleep(80);
    await job.stop();
    expect(passes).toBeGreaterThanOrEqual(2);
    const failure = lines.find((line) => line.job === 'flaky');
    expect(failure?.msg).toBe('background job failed; it runs again on schedule');
    expect((failure?.err as { message?: string } | undefined)?.message).toBe('store away');
  });

  it('runs the initial work first, and stop() waits for a pass in progress and schedules nothing more', async () => {
    const { logger } = capturingLogger();
    const order: string[] = [];
    let release: () => void = () => undefined;
    const job = new PeriodicJob({
      name: 'ordered',
      intervalMs: 1,
      firstDelayMs: 0,
      logger,
      initialWork: async () => {
        order.push('initial');
      },
      work: async () => {
        order.push('pass');
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        order.push('pass done');
      },
    });
    job.start();
    await sleep(30);
    expect(job.busy).toBe(true);
    const stopped = job.stop().then(() => order.push('stopped'));
    release();
    await stopped;
    await sleep(20);
    expect(order).toEqual(['initial', 'pass', 'pass done', 'stopped']);
  });
});
