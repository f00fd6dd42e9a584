import { listeningPort } from '@mtx/shared/lifecycle';
import http from 'node:http';

/** /healthz (the process runs) and /readyz (NATS connected and the service subscribed). */
export function startHealthServer(port: number, host: string, ready: () => boolean): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    if (request.url === '/healthz') {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      return;
    }
    if (request.url === '/readyz') {
      const isReady = ready();
      response.writeHead(isReady ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ ready: isReady }));
      return;
    }
    response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"not_found","message":"no such route"}}');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      resolve({
        port: listeningPort(server),
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}
