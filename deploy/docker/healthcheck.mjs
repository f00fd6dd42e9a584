// Container health check for compose and the images' HEALTHCHECK (Kubernetes uses its own probes instead).
//
//   node /app/deploy/docker/healthcheck.mjs http://127.0.0.1:8080/readyz    → healthy on a 2xx answer
//   node /app/deploy/docker/healthcheck.mjs grpc://127.0.0.1:50051[/name]   → healthy when grpc.health.v1
//                                                                              Check says SERVING
//
// Exit code 0 means healthy, 1 unhealthy, 2 a usage error. The slim Node image has neither curl nor
// grpc_health_probe, and a compose health check runs every few seconds, so this is plain JavaScript on Node
// and the libraries already installed for the services (no tsx start-up, no extra binary in the image).
import { credentials, makeGenericClientConstructor } from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';

const timeoutMs = Number(process.env.HEALTHCHECK_TIMEOUT_MS ?? 3_000);

function fail(message, code = 1) {
  process.stderr.write(`unhealthy: ${message}\n`);
  process.exit(code);
}

async function checkHttp(url) {
  let response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    return fail(`${url}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!response.ok) return fail(`${url} answered ${response.status}`);
  process.stdout.write(`healthy: ${url} answered ${response.status}\n`);
  process.exit(0);
}

function checkGrpc(target) {
  const url = new URL(target);
  const address = `${url.hostname}:${url.port}`;
  // The path names the grpc.health.v1 service to ask about; empty means the whole server.
  const serviceName = decodeURIComponent(url.pathname.replace(/^\//, ''));
  const HealthClient = makeGenericClientConstructor(healthService, 'Health');
  const client = new HealthClient(address, credentials.createInsecure());
  client.Check({ service: serviceName }, { deadline: new Date(Date.now() + timeoutMs) }, (error, response) => {
    client.close();
    if (error) return fail(`${target}: ${error.details || error.message}`);
    if (response?.status !== 'SERVING') return fail(`${target} reports ${response?.status ?? 'no status'}`);
    process.stdout.write(`healthy: ${target} is SERVING\n`);
    process.exit(0);
  });
}

const target = process.argv[2];
if (!target) fail('usage: healthcheck.mjs <http(s)://host:port/path | grpc://host:port[/service]>', 2);
else if (target.startsWith('grpc://')) checkGrpc(target);
else if (target.startsWith('http://') || target.startsWith('https://')) await checkHttp(target);
else fail(`unsupported target ${target}`, 2);
