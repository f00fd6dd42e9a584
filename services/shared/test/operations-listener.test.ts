import { afterEach, describe, expect, it } from 'vitest';
import { exposeMetrics, metricsHandler, type MetricsHandler } from '../src/telemetry/metrics-exposition';
import { startOperationsListener, type OperationsListener } from '../src/telemetry/operations-listener';

let listener: OperationsListener | undefined;
const previousHandler = metricsHandler();

afterEach(async () => {
  await listener?.close();
  listener = undefined;
  if (previousHandler) exposeMetrics(previousHandler);
});

const url = (path: string) => `http://127.0.0.1:${listener!.port}${path}`;

describe('the operations listener', () => {
  it('serves the Prometheus reader at /metrics on a port of its own (0 picks a free one)', async () => {
    const scrape: MetricsHandler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' }).end('mtx_example_total 3\n');
    };
    exposeMetrics(scrape);
    listener = await startOperationsListener({ port: 0, host: '127.0.0.1' });
    expect(listener.port).toBeGreaterThan(0);
    const answer = await fetch(url('/metrics'));
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe('mtx_example_total 3\n');
    expect((await fetch(url('/nothing'))).status).toBe(404);
    expect((await fetch(url('/metrics'), { method: 'POST' })).status).toBe(405);
  });

  it('names each readiness check, 503 while one fails, and answers liveness without asking them', async () => {
    let storeUp = false;
    let asked = 0;
    listener = await startOperationsListener({
      port: 0,
      host: '127.0.0.1',
      readiness: async () => {
        asked += 1;
        return { store: storeUp, wallet: true };
      },
    });
    const down = await fetch(url('/readyz'));
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ ready: false, checks: { store: false, wallet: true } });
    storeUp = true;
    const up = await fetch(url('/readyz'));
    expect(up.status).toBe(200);
    expect(await up.json()).toEqual({ ready: true, checks: { store: true, wallet: true } });
    const alive = await fetch(url('/healthz'));
    expect(await alive.json()).toEqual({ status: 'ok' });
    expect(asked).toBe(2);
  });

  it('refuses to start on a port already taken, so a misconfigured service fails at boot', async () => {
    listener = await startOperationsListener({ port: 0, host: '127.0.0.1' });
    await expect(startOperationsListener({ port: listener.port, host: '127.0.0.1' })).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });
});
