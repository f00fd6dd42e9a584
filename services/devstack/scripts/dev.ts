/**
 * `npm start`: provisions what is missing, starts the store, NATS and every service as child processes with
 * prefixed logs, creates the demo customer, writes .data/dev.json, and stops everything on Ctrl-C.
 */
import fs from 'node:fs';
import path from 'node:path';
import { startLocalInfrastructure } from '../src/local';
import { defaultDataDirectory } from '@mtx/shared/infra/paths';
import { freePort } from '../src/ports';
import { provisionTools, serverTools } from '../src/provision';
import { serviceNames, startStack, type ServiceProcess, type Stack } from '../src/services';
import { formatLogLine, colorFor } from './log-format';
import { ensureDemoCustomer } from './seed-demo';

const dataDirectory = defaultDataDirectory;
const log = (line: string) => process.stdout.write(`${colorFor('dev')}[dev]\x1b[0m ${line}\n`);

async function gatewayPort(): Promise<number> {
  const requested = Number(process.env.PORT ?? 8080);
  const probe = await import('node:net').then(
    (net) =>
      new Promise<boolean>((resolve) => {
        const server = net.createServer();
        server.once('error', () => resolve(false));
        server.listen(requested, '127.0.0.1', () => server.close(() => resolve(true)));
      }),
  );
  if (probe) return requested;
  if (process.env.PORT) throw new Error(`PORT ${requested} is in use`);
  const fallback = await freePort();
  log(`port ${requested} is in use; the gateway takes ${fallback} instead (set PORT to choose)`);
  return fallback;
}

/** Where each process runs, for operators and for the tests that kill one on purpose. */
function writeRunFile(stack: Stack, infrastructure: Awaited<ReturnType<typeof startLocalInfrastructure>>): void {
  const services = Object.fromEntries(
    [...stack.services.entries()].map(([name, handle]) => [
      name,
      { pid: handle.pid, address: handle.address, metrics_url: handle.metricsUrl },
    ]),
  );
  const run = { pid: process.pid, mongodb_url: infrastructure.mongodbUrl, nats_url: infrastructure.natsUrl, services };
  fs.writeFileSync(path.join(dataDirectory, 'run.json'), `${JSON.stringify(run, null, 2)}\n`);
}

async function main(): Promise<void> {
  const started = Date.now();
  fs.mkdirSync(dataDirectory, { recursive: true });
  await provisionTools(undefined, serverTools);
  const infrastructure = await startLocalInfrastructure({ dataDirectory, log, outputDirectory: path.join(dataDirectory, 'logs') });
  let stack: Stack | undefined;
  let stopping = false;
  const restarts = new Map<string, number>();

  const shutdown = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    log(`${reason}: stopping services…`);
    await stack?.stop().catch(() => undefined);
    await infrastructure.stop().catch(() => undefined);
    log(`stopped; data kept in ${path.relative(process.cwd(), dataDirectory)}`);
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('Ctrl-C'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  const port = await gatewayPort();
  stack = await startStack({
    mongodbUrl: infrastructure.mongodbUrl,
    natsUrl: infrastructure.natsUrl,
    dataDirectory,
    gatewayPort: port,
    env: {
      HOST: process.env.HOST ?? '127.0.0.1',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
      // On a local cluster the claims bucket gets its production copies, so a node lost loses no claim.
      CONNECTOR_CLAIMS_REPLICAS: process.env.CONNECTOR_CLAIMS_REPLICAS ?? String(Math.min(3, infrastructure.natsNodes?.length ?? 1)),
    },
    onLine: (service, line) => process.stdout.write(`${colorFor(service)}[${service}]\x1b[0m ${formatLogLine(line)}\n`),
    onExit: (service, code, signal) => {
      if (stopping) return;
      // A crash is reported loudly and the service restarted, so the stack stays usable while the cause is read.
      const count = (restarts.get(service) ?? 0) + 1;
      restarts.set(service, count);
      log(`\x1b[31m${service} exited unexpectedly (${signal ?? `code ${code}`})\x1b[0m — restart ${count}/5`);
      const handle: ServiceProcess | undefined = stack?.services.get(service);
      if (handle && count <= 5) {
        setTimeout(
          () =>
            void handle.restart().then(
              () => {
                log(`${service} restarted`);
                if (stack) writeRunFile(stack, infrastructure);
              },
              (error: Error) => log(`\x1b[31m${service} failed to restart: ${error.message}\x1b[0m`),
            ),
          1_000 * count,
        );
      } else if (count > 5) log(`\x1b[31m${service} keeps crashing; giving up on it\x1b[0m`);
    },
  });

  writeRunFile(stack, infrastructure);
  const devFile = await ensureDemoCustomer({ stack, infrastructure, dataDirectory, log });
  log(`stack ready in ${((Date.now() - started) / 1000).toFixed(1)} s — ${serviceNames.length} services`);
  process.stdout.write(
    `${[
      '',
      `  base_url     ${devFile.base_url}`,
      `  console      ${devFile.base_url}/console (paste full_key, or read_key to only look)`,
      `  full_key     ${devFile.full_key}`,
      `  read_key     ${devFile.read_key}`,
      `  sandbox_url  ${devFile.sandbox_url}`,
      `  metrics      ${stack.services.get('gateway')?.metricsUrl}/metrics (each service's in the run file, metrics_url)`,
      `  accounts     ${devFile.accounts.map((account) => `${account.id} (${account.platform}, ${account.server}, suffix "${account.symbol_suffix}")`).join('\n               ')}`,
      `  written to   ${path.relative(process.cwd(), path.join(dataDirectory, 'dev.json'))}`,
      '',
      `  try: curl -s -H "Authorization: Bearer ${devFile.read_key}" ${devFile.base_url}/v1/wallet`,
      '  Ctrl-C stops everything; the next npm start keeps the data.',
      '',
    ].join('\n')}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`[dev] failed: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
