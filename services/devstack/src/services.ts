import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { pathToFileURL } from 'node:url';
import { useBtcpayFake } from './btcpay-fake';
import { bundlePath, ensureBuilt } from './build';
import { ensureConsoleBuilt } from './console-build';
import { checkGrpcHealth } from '@mtx/shared/grpc';
import { heapArguments } from './heap';
import { freePort } from './ports';
import { repositoryRoot } from '@mtx/shared/infra/paths';

/**
 * How each service is started and probed. The dev runner, the end-to-end tests, the fault suite and the
 * benchmarks all start services through this one table, so they run the same processes the same way.
 */
export const serviceNames = [
  'wallet',
  'payments',
  'billing',
  'execution',
  'broker-sim',
  'crypto-sandbox',
  'connector-mt4',
  'connector-mt5',
  'notifications',
  'gateway',
] as const;
export type ServiceName = (typeof serviceNames)[number];

interface ServiceSpec {
  /** Env variable that sets the port the service listens on. */
  portVariable: string;
  /** Env variable other services use to reach it. */
  addressVariable?: string;
  probe: 'grpc' | 'http';
  /** Extra port (HTTP control or health) and its variable. */
  secondaryPortVariable?: string;
  secondaryAddressVariable?: string;
}

export const serviceSpecs: Record<ServiceName, ServiceSpec> = {
  wallet: { portVariable: 'GRPC_PORT', addressVariable: 'WALLET_GRPC_URL', probe: 'grpc' },
  payments: {
    portVariable: 'GRPC_PORT',
    addressVariable: 'PAYMENTS_GRPC_URL',
    probe: 'grpc',
    // Its hook listener: where the sandbox delivers postbacks, as the ingress routes a provider's in production.
    secondaryPortVariable: 'HOOKS_PORT',
    secondaryAddressVariable: 'PAYMENTS_HOOKS_URL',
  },
  billing: { portVariable: 'GRPC_PORT', addressVariable: 'BILLING_GRPC_URL', probe: 'grpc' },
  execution: { portVariable: 'GRPC_PORT', addressVariable: 'EXECUTION_GRPC_URL', probe: 'grpc' },
  'broker-sim': {
    // No address variable: nothing calls its gRPC server (its EAs dial the connectors; docs/terminal-bridge.md).
    portVariable: 'GRPC_PORT',
    probe: 'grpc',
    secondaryPortVariable: 'HTTP_PORT',
    secondaryAddressVariable: 'BROKER_SIM_HTTP_URL',
  },
  'crypto-sandbox': { portVariable: 'PORT', addressVariable: 'CRYPTO_SANDBOX_URL', probe: 'http' },
  'connector-mt4': { portVariable: 'HEALTH_PORT', probe: 'http' },
  'connector-mt5': { portVariable: 'HEALTH_PORT', probe: 'http' },
  notifications: { portVariable: 'GRPC_PORT', addressVariable: 'NOTIFICATIONS_GRPC_URL', probe: 'grpc' },
  gateway: { portVariable: 'PORT', addressVariable: 'GATEWAY_URL', probe: 'http' },
};

export interface ServiceProcess {
  readonly name: string;
  readonly port: number;
  readonly address: string;
  /** Its operations listener (METRICS_PORT): `/metrics`, `/healthz`, `/readyz` with each check. */
  readonly metricsUrl: string;
  readonly pid: number | undefined;
  running(): boolean;
  /** Resolves when the process has exited. */
  exited(): Promise<number | null>;
  stop(graceMs?: number): Promise<void>;
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again with the same port and environment. */
  restart(): Promise<void>;
}

export interface StartServiceOptions {
  name: string;
  /** Folder under services/ (defaults to the name; replicas share a folder). */
  folder?: ServiceName;
  env: NodeJS.ProcessEnv;
  port?: number;
  onLine?: (service: string, line: string, stream: 'stdout' | 'stderr') => void;
  onExit?: (service: string, code: number | null, signal: NodeJS.Signals | null) => void;
  readyDeadlineMs?: number;
}

/**
 * Services run compiled (services/<name>/dist/main.js, see build.ts) unless MTX_RUN_TYPESCRIPT=1 asks for the
 * TypeScript sources through tsx's loader. Either way the service is Node itself, not a wrapper (the tsx CLI runs
 * the service in a second process, so a SIGKILL in a crash test would kill only the wrapper).
 */
function runsCompiled(env: NodeJS.ProcessEnv): boolean {
  return env.MTX_RUN_TYPESCRIPT !== '1';
}

// Node itself with tsx's loader, for MTX_RUN_TYPESCRIPT=1.
const tsxLoader = pathToFileURL(path.join(repositoryRoot, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

/**
 * gRPC services by grpc.health.v1 on their port; HTTP ones on their operations listener's /healthz, which answers
 * once the app serves (the gateway's public /healthz also waits for every backend, and some stacks run without
 * some of them).
 */
async function probe(spec: ServiceSpec, address: string, metricsUrl: string): Promise<boolean> {
  if (spec.probe === 'grpc') return checkGrpcHealth(address, 500);
  try {
    const response = await fetch(`${metricsUrl}/healthz`, { signal: AbortSignal.timeout(500) });
    return response.ok;
  } catch {
    return false;
  }
}

export async function startServiceProcess(options: StartServiceOptions): Promise<ServiceProcess> {
  const folder = options.folder ?? (options.name as ServiceName);
  const spec = serviceSpecs[folder];
  const port = options.port ?? (await freePort());
  // A free one of its own (the stack's environment is shared by every service), kept across restarts.
  const metricsPort = await freePort();
  const metricsUrl = `http://127.0.0.1:${metricsPort}`;
  const address = spec.probe === 'grpc' ? `127.0.0.1:${port}` : `http://127.0.0.1:${port}`;
  const entry = path.join(repositoryRoot, 'services', folder, 'src', 'main.ts');
  if (!fs.existsSync(entry)) throw new Error(`service ${folder} has no ${path.relative(repositoryRoot, entry)}`);
  let child: ChildProcess | undefined;
  let exitPromise: Promise<number | null> = Promise.resolve(null);
  const compiled = runsCompiled(options.env);
  const launch = async () => {
    // A restart runs what the sources are now: a stale bundle is rebuilt first (esbuild, well under a second).
    if (compiled) await ensureBuilt(folder);
    // Run from TypeScript, the gateway still serves the console's browser bundle.
    else if (folder === 'gateway') await ensureConsoleBuilt();
    const command = [
      ...heapArguments(options.env),
      ...(compiled
        ? [...(options.env.SOURCE_MAPS === '1' ? ['--enable-source-maps'] : []), bundlePath(folder)]
        : ['--import', tsxLoader, entry]),
    ];
    child = spawn(process.execPath, command, {
      cwd: repositoryRoot,
      env: {
        ...options.env,
        [spec.portVariable]: String(port),
        METRICS_PORT: String(metricsPort),
        OTEL_SERVICE_NAME: options.env.OTEL_SERVICE_NAME ?? folder,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const current = child;
    exitPromise = new Promise((resolve) =>
      current.once('exit', (code, signal) => {
        options.onExit?.(options.name, code, signal);
        resolve(code);
      }),
    );
    for (const stream of ['stdout', 'stderr'] as const) {
      const reader = readline.createInterface({ input: current[stream]! });
      reader.on('line', (line) => options.onLine?.(options.name, line, stream));
    }
    const deadline = Date.now() + (options.readyDeadlineMs ?? 60_000);
    let exitedEarly = false;
    void exitPromise.then(() => (exitedEarly = true));
    while (!(await probe(spec, address, metricsUrl))) {
      if (exitedEarly) throw new Error(`${options.name} exited before it was ready`);
      if (Date.now() > deadline) throw new Error(`${options.name} was not ready within ${options.readyDeadlineMs ?? 60_000} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const isRunning = () => !!child && child.exitCode === null && child.signalCode === null;
  const terminate = (signal: NodeJS.Signals, graceMs: number) =>
    new Promise<void>((resolve) => {
      if (!child || !isRunning()) return resolve();
      const current = child;
      const timer = setTimeout(() => current.kill('SIGKILL'), graceMs);
      current.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      current.kill(signal);
    });
  await launch();
  return {
    name: options.name,
    port,
    address,
    metricsUrl,
    get pid() {
      return child?.pid;
    },
    running: isRunning,
    exited: () => exitPromise,
    stop: (graceMs = 10_000) => terminate('SIGTERM', graceMs),
    kill: (signal = 'SIGKILL') => terminate(signal, 2_000),
    restart: async () => {
      await terminate('SIGTERM', 5_000);
      await launch();
    },
  };
}

export interface Stack {
  env: NodeJS.ProcessEnv;
  /**
   * The terminal listener ports (TERMINAL_LISTEN_PORT) of each platform's connector replicas: the first is the
   * stack's own connector's, the others are for replicas the caller starts (see `connectorReplicas`). broker-sim's
   * hosted EAs dial them all.
   */
  terminalPorts: Record<'mt4' | 'mt5', number[]>;
  services: Map<string, ServiceProcess>;
  gatewayUrl: string;
  sandboxUrl: string;
  stop(): Promise<void>;
}

export interface StartStackOptions {
  mongodbUrl: string;
  natsUrl: string;
  /** The data folder every service is given as DATA_DIR (broker-sim keeps its journal there). */
  dataDirectory: string;
  env?: NodeJS.ProcessEnv;
  /** Variables for one service only, over `env` (a benchmark switching tracing off in a stand-in, say). */
  serviceEnv?: Partial<Record<ServiceName, NodeJS.ProcessEnv>>;
  /** Which services to run; default all. */
  services?: readonly ServiceName[];
  gatewayPort?: number;
  /** Connector replicas per platform the caller will run (the stack starts one): broker-sim's EAs dial every one. */
  connectorReplicas?: Partial<Record<'mt4' | 'mt5', number>>;
  onLine?: StartServiceOptions['onLine'];
  onExit?: StartServiceOptions['onExit'];
}

/** The crypto-sandbox's development NOWPayments key and IPN secret (its config): published, so only ever the fake's. */
const developmentNowPaymentsApiKey = 'local-only-nowpayments-api-key';
const developmentNowPaymentsIpnSecret = 'local-only-nowpayments-ipn-secret';

/**
 * `PAYMENTS_PROVIDER=nowpayments` on a laptop, or the development NOWPayments key given (the fault suite's
 * payments that take NOWPayments' callbacks beside the sandbox's): payments talks to the crypto-sandbox's fake
 * NOWPayments (`/nowpayments/v1`) with the development key and IPN secret both sides default to, and the fake
 * calls back through the gateway. Only settings not given are filled in, so a real NOWPayments account is
 * used by setting them all.
 */
function useFakeNowPayments(env: NodeJS.ProcessEnv): void {
  if (env.PAYMENTS_PROVIDER !== 'nowpayments' && env.NOWPAYMENTS_API_KEY !== developmentNowPaymentsApiKey) return;
  const fake = env.NOWPAYMENTS_API_URL === undefined;
  env.NOWPAYMENTS_API_URL ??= `${env.CRYPTO_SANDBOX_URL}/nowpayments/v1`;
  env.NOWPAYMENTS_API_KEY ??= developmentNowPaymentsApiKey;
  env.NOWPAYMENTS_IPN_SECRET ??= developmentNowPaymentsIpnSecret;
  // The gateway's address: it has the same callback route (forwarded over gRPC), and it is what its own
  // PUBLIC_BASE_URL means (the address of the API documents).
  env.PUBLIC_BASE_URL ??= env.GATEWAY_URL;
  if (fake)
    process.stdout.write(
      `[devstack] NOWPayments is a FAKE here: ${env.NOWPAYMENTS_API_URL} (no real money); pay through POST ${env.CRYPTO_SANDBOX_URL}/sandbox/deposits\n`,
    );
}

/**
 * The environment every service of a stack starts with: the caller's, then the stack's own options over it.
 * A local stack delivers webhooks to local receivers, so WEBHOOKS_ALLOW_PRIVATE defaults to 1 (production
 * refuses private targets); a value set in the environment or in `env` wins, so `WEBHOOKS_ALLOW_PRIVATE=0
 * npm start` runs the production address policy.
 */
export function stackEnvironment(
  processEnv: NodeJS.ProcessEnv,
  options: Pick<StartStackOptions, 'env' | 'mongodbUrl' | 'natsUrl' | 'dataDirectory'>,
): NodeJS.ProcessEnv {
  return {
    WEBHOOKS_ALLOW_PRIVATE: '1',
    ...processEnv,
    ...options.env,
    MONGODB_URL: options.mongodbUrl,
    NATS_URL: options.natsUrl,
    DATA_DIR: options.dataDirectory,
  };
}

/**
 * Starts services in dependency order on free ports, passing every address to every service, and waits for
 * each to answer its health check before starting those that call it.
 */
export async function startStack(options: StartStackOptions): Promise<Stack> {
  const wanted = new Set(options.services ?? serviceNames);
  const ports = new Map<ServiceName, number>();
  const secondaryPorts = new Map<ServiceName, number>();
  for (const name of serviceNames) {
    ports.set(name, name === 'gateway' && options.gatewayPort !== undefined ? options.gatewayPort : await freePort());
    if (serviceSpecs[name].secondaryPortVariable) secondaryPorts.set(name, await freePort());
  }
  const env = stackEnvironment(process.env, options);
  // Every connector replica's terminal listener, known before anything starts: broker-sim (the development terminal
  // host) is started first, and its EAs keep dialling until the connectors listen (docs/terminal-bridge.md).
  const terminalPorts: Stack['terminalPorts'] = { mt4: [], mt5: [] };
  for (const platform of ['mt4', 'mt5'] as const) {
    for (let replica = 0; replica < Math.max(1, options.connectorReplicas?.[platform] ?? 1); replica++)
      terminalPorts[platform].push(await freePort());
    const variable = platform === 'mt4' ? 'TERMINAL_CONNECTOR_MT4_ADDRESSES' : 'TERMINAL_CONNECTOR_MT5_ADDRESSES';
    env[variable] ??= terminalPorts[platform].map((port) => `127.0.0.1:${port}`).join(',');
  }
  for (const name of serviceNames) {
    const spec = serviceSpecs[name];
    const port = ports.get(name)!;
    if (spec.addressVariable && env[spec.addressVariable] === undefined)
      env[spec.addressVariable] = spec.probe === 'grpc' ? `127.0.0.1:${port}` : `http://127.0.0.1:${port}`;
    if (spec.secondaryPortVariable && spec.secondaryAddressVariable)
      env[spec.secondaryAddressVariable] = `http://127.0.0.1:${secondaryPorts.get(name)}`;
  }
  useFakeNowPayments(env);
  const btcpayFake = useBtcpayFake(env);
  if (btcpayFake) options.onLine?.('devstack', btcpayFake, 'stdout');
  const services = new Map<string, ServiceProcess>();
  const stopAll = async () => {
    // Reverse order: the gateway first, so no new work arrives while the backends drain.
    for (const service of [...services.values()].reverse()) await service.stop();
  };
  try {
    for (const name of serviceNames) {
      if (!wanted.has(name)) continue;
      const spec = serviceSpecs[name];
      const serviceEnv = { ...env, ...options.serviceEnv?.[name] };
      if (spec.secondaryPortVariable) serviceEnv[spec.secondaryPortVariable] = String(secondaryPorts.get(name));
      if (name === 'connector-mt4' || name === 'connector-mt5')
        serviceEnv.TERMINAL_LISTEN_PORT = String(terminalPorts[name === 'connector-mt4' ? 'mt4' : 'mt5'][0]);
      const handle = await startServiceProcess({
        name,
        env: serviceEnv,
        port: ports.get(name)!,
        onLine: options.onLine,
        onExit: options.onExit,
      });
      services.set(name, handle);
    }
  } catch (error) {
    await stopAll();
    throw error;
  }
  return {
    env,
    terminalPorts,
    services,
    gatewayUrl: env.GATEWAY_URL!,
    sandboxUrl: env.CRYPTO_SANDBOX_URL!,
    stop: stopAll,
  };
}
