import { Pool } from 'undici';
import { fullCollection } from '../../services/payments/src/app/idle-collection';

/** Runs `work` over every item with at most `parallel` at once (a closed loop over a fixed list). */
export async function inParallel<T>(items: T[], parallel: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

const sweepPauseMs = 500;

/**
 * Collects the load generator's own garbage, fully, before a timed phase. The load generator times every answer,
 * so its own collections are timed as the services' latency: a major collection left over from the phase before
 * (the closed loops' garbage) paused it 30 ms in the first second of an open loop. The benchmark never collects
 * the services: they are what is measured (payments collects its own heap when idle, as it does in production).
 * The collection's sweeping goes on in the background for a while after it (on the cores the services answer
 * on), so the phase starts after a pause.
 */
export async function collectLoadGeneratorGarbage(): Promise<void> {
  fullCollection()();
  await new Promise((resolve) => setTimeout(resolve, sweepPauseMs));
}

/**
 * The benchmarks' kept-alive connections to one origin (the gateway, payments' hook listener): undici's pool, a
 * quarter less CPU per request than node:http, which matters because the load generator shares the cores with
 * the processes it measures.
 */
export function createHttpPool(originUrl: string, connections: number): Pool {
  return new Pool(originUrl, { connections, headersTimeout: 30_000, bodyTimeout: 30_000 });
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One JSON request to the gateway over `pool`, with a bearer key: the benchmarks' REST client. */
export async function restCall(
  pool: Pool,
  key: string,
  method: HttpMethod,
  pathname: string,
  body?: unknown,
): Promise<{ status: number; body: string }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const response = await pool.request({
    method,
    path: pathname,
    headers: { authorization: `Bearer ${key}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(payload === undefined ? {} : { body: payload }),
  });
  return { status: response.statusCode, body: await response.body.text() };
}
