import http from 'node:http';

/** Runs `work` over every item with at most `parallel` at once (a closed loop over a fixed list). */
export async function inParallel<T>(items: T[], parallel: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/**
 * One JSON request to the gateway over a kept-alive `agent`, with a bearer key: the benchmarks' REST client
 * (plain node:http, so the load generator itself costs little CPU next to the processes it measures).
 */
export function restCall(
  agent: http.Agent,
  gateway: URL,
  key: string,
  method: string,
  pathname: string,
  body?: unknown,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const request = http.request(
      {
        host: gateway.hostname,
        port: gateway.port,
        method,
        path: pathname,
        agent,
        headers: {
          authorization: `Bearer ${key}`,
          ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    request.setTimeout(30_000, () => request.destroy(new Error('timeout')));
    request.on('error', reject);
    if (payload !== undefined) request.write(payload);
    request.end();
  });
}
