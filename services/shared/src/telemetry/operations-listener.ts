import http from 'node:http';
import { metricsHandler } from './metrics-exposition';

/**
 * The operations listener, on METRICS_PORT: what a scraper and the orchestrator's probes need and a client must
 * not see. `/metrics` (Prometheus text: it names the host, the process id and its command line), `/healthz` (the
 * process answers) and `/readyz` (each dependency's check by name). It is a port of its own so that the ingress,
 * which publishes the API port only, can never route to it (deploy/README.md, "Ports").
 */
export interface OperationsListenerOptions {
  port: number;
  host: string;
  /** Each dependency's reachability by name; readiness is all of them. Without it the process is ready once it runs. */
  readiness?: () => Promise<Record<string, boolean>>;
}

export interface OperationsListener {
  readonly port: number;
  close(): Promise<void>;
}

function json(response: http.ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function answer(options: OperationsListenerOptions, request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
  const path = (request.url ?? '').split('?')[0];
  if (request.method !== 'GET') return json(response, 405, { error: { code: 'method_not_allowed', message: 'only GET is served here' } });
  if (path === '/metrics') {
    const handle = metricsHandler();
    if (handle) return handle(request, response);
    response
      .writeHead(503, { 'content-type': 'text/plain' })
      .end('metrics are disabled (PROMETHEUS_METRICS=false or OTEL_SDK_DISABLED=true)\n');
    return;
  }
  if (path === '/healthz') return json(response, 200, { status: 'ok' });
  if (path === '/readyz') {
    const checks = options.readiness ? await options.readiness() : {};
    const ready = Object.values(checks).every(Boolean);
    return json(response, ready ? 200 : 503, { ready, checks });
  }
  return json(response, 404, { error: { code: 'not_found', message: 'no such route' } });
}

export function startOperationsListener(options: OperationsListenerOptions): Promise<OperationsListener> {
  const server = http.createServer((request, response) => {
    answer(options, request, response).catch(() => {
      if (!response.headersSent) json(response, 503, { ready: false, checks: {} });
      else response.destroy();
    });
  });
  // A scraper or a probe that stops reading does not hold a socket for long.
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve({
        port: (server.address() as { port: number }).port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
