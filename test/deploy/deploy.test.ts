/**
 * Checks the deployment artifacts (deploy/docker, docker-compose.yml, deploy/k8s, Tiltfile) with the real tools,
 * without Docker or a cluster: kustomize renders every overlay, kubeconform validates the output against the
 * Kubernetes schemas in strict mode, compose-go (the loader `docker compose` uses) resolves the compose file,
 * the Tiltfile runs in the real Starlark interpreter, and the container health check runs against real servers.
 * The tools are built or fetched into .cache/tools/ by deploy/tools/provision-validators.ts on the first run.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { HealthImplementation } from 'grpc-health-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import YAML from 'yaml';
import { tools as localTools } from '@mtx/devstack/provision';
import { kubernetesSchemaSource, provisionValidators, type ValidatorPaths } from '../../deploy/tools/provision-validators';
import { repositoryRoot } from '../../services/shared/src/infra/paths';

/** Production runs the minor line of NATS the local stack (and so every test) runs: `2.14` for v2.14.10. */
const natsLine = localTools['nats-server'].version.replace(/^v/, '').split('.').slice(0, 2).join('.');

const run = promisify(execFile);

// Each check starts a real tool; on a busy two-core machine that can take more than vitest's default 5 s.
vi.setConfig({ testTimeout: 60_000 });

// ---------------------------------------------------------------------------------------------------------------
// What the artifacts must agree on: the services, their ports and probes (the code base's conventions).

type Probe = { kind: 'grpc'; port: number } | { kind: 'http'; port: number; liveness: string; readiness: string };

interface ServiceConvention {
  portVariable: string;
  port: number;
  probe: Probe;
  simulator: boolean;
  secrets: string[];
}

const services: Record<string, ServiceConvention> = {
  gateway: {
    portVariable: 'PORT',
    port: 8080,
    // Probed on the operations listener (METRICS_PORT): its /readyz names each check, the API port's never does.
    probe: { kind: 'http', port: 9464, liveness: '/healthz', readiness: '/readyz' },
    simulator: false,
    secrets: [],
  },
  wallet: { portVariable: 'GRPC_PORT', port: 50051, probe: { kind: 'grpc', port: 50051 }, simulator: false, secrets: [] },
  payments: {
    portVariable: 'GRPC_PORT',
    port: 50052,
    probe: { kind: 'grpc', port: 50052 },
    simulator: false,
    secrets: ['POSTBACK_SECRET', 'SANDBOX_API_KEY', 'EVENT_ID_SECRET'],
  },
  billing: {
    portVariable: 'GRPC_PORT',
    port: 50053,
    probe: { kind: 'grpc', port: 50053 },
    simulator: false,
    secrets: ['EVENT_ID_SECRET'],
  },
  execution: {
    portVariable: 'GRPC_PORT',
    port: 50054,
    probe: { kind: 'grpc', port: 50054 },
    simulator: false,
    secrets: ['ACCOUNT_SECRET_KEY', 'EVENT_ID_SECRET', 'TERMINAL_HOST_SEAL_KEY'],
  },
  'connector-mt4': {
    portVariable: 'HEALTH_PORT',
    port: 8081,
    probe: { kind: 'http', port: 8081, liveness: '/healthz', readiness: '/readyz' },
    simulator: false,
    secrets: [],
  },
  'connector-mt5': {
    portVariable: 'HEALTH_PORT',
    port: 8081,
    probe: { kind: 'http', port: 8081, liveness: '/healthz', readiness: '/readyz' },
    simulator: false,
    secrets: [],
  },
  notifications: {
    portVariable: 'GRPC_PORT',
    port: 50055,
    probe: { kind: 'grpc', port: 50055 },
    simulator: false,
    secrets: ['WEBHOOK_SECRET_KEY'],
  },
  'broker-sim': {
    portVariable: 'GRPC_PORT',
    port: 50060,
    probe: { kind: 'grpc', port: 50060 },
    simulator: true,
    secrets: ['TERMINAL_HOST_SEAL_KEY'],
  },
  'crypto-sandbox': {
    portVariable: 'PORT',
    port: 8090,
    probe: { kind: 'http', port: 8090, liveness: '/healthz', readiness: '/healthz' },
    simulator: true,
    secrets: ['POSTBACK_SECRET', 'SANDBOX_API_KEY'],
  },
};
const serviceNames = Object.keys(services);
const productNames = serviceNames.filter((name) => !services[name]!.simulator);
const simulatorNames = serviceNames.filter((name) => services[name]!.simulator);
const autoscaled = ['gateway', 'execution', 'connector-mt4', 'connector-mt5'];
const secretKeys = [
  'POSTBACK_SECRET',
  'ACCOUNT_SECRET_KEY',
  'WEBHOOK_SECRET_KEY',
  'SANDBOX_API_KEY',
  'EVENT_ID_SECRET',
  'TERMINAL_HOST_SEAL_KEY',
];
/** The connectors' terminal listeners (docs/terminal-bridge.md): port, and the Service that publishes it alone. */
const terminalPorts: Record<string, number> = { 'connector-mt4': 50080, 'connector-mt5': 50081 };
const terminalServices = Object.keys(terminalPorts).map((name) => `${name}-terminal`);
const terminalTlsScript = path.join(repositoryRoot, 'deploy/tls/make-terminal-tls.sh');
const devTerminalNames = [
  'connector-mt4-terminal',
  'connector-mt5-terminal',
  'connector-mt4-terminal.mtx-dev.svc',
  'connector-mt5-terminal.mtx-dev.svc',
];

// ---------------------------------------------------------------------------------------------------------------
// Loose shapes of the Kubernetes objects the assertions read.

interface Metadata {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
}
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: { name: string; key: string } };
}
interface HttpProbe {
  httpGet?: { path: string; port: number | string };
  grpc?: { port: number; service?: string };
  tcpSocket?: { port: number | string };
  exec?: { command: string[] };
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  readinessProbe?: HttpProbe;
  livenessProbe?: HttpProbe;
  startupProbe?: HttpProbe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: Record<string, unknown> & { capabilities?: { drop?: string[]; add?: string[] } };
  volumeMounts?: { name: string; mountPath: string }[];
}
interface PodSpec {
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  securityContext?: Record<string, unknown> & { seccompProfile?: { type: string } };
  containers: Container[];
  initContainers?: Container[];
  volumes?: { name: string; emptyDir?: Record<string, unknown>; persistentVolumeClaim?: unknown }[];
  topologySpreadConstraints?: { topologyKey: string; maxSkew: number; matchLabelKeys?: string[] }[];
  affinity?: { podAntiAffinity?: unknown };
}
interface KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: Metadata;
  spec?: any;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

interface Rendered {
  text: string;
  file: string;
  objects: KubernetesObject[];
}

const workloadKinds = ['Deployment', 'StatefulSet', 'Job'];

function find(rendered: Rendered, kind: string, name: string): KubernetesObject {
  const found = rendered.objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in the rendered output`);
  return found;
}

function all(rendered: Rendered, kind: string): KubernetesObject[] {
  return rendered.objects.filter((object) => object.kind === kind);
}

function podSpec(workload: KubernetesObject): PodSpec {
  return workload.spec.template.spec as PodSpec;
}

function mainContainer(workload: KubernetesObject): Container {
  const container = podSpec(workload).containers[0];
  if (!container) throw new Error(`${workload.kind} ${workload.metadata.name} has no container`);
  return container;
}

function envValue(container: Container, name: string): EnvVar | undefined {
  return container.env?.find((variable) => variable.name === name);
}

// ---------------------------------------------------------------------------------------------------------------
// Tools and rendered outputs, provided once for the whole file.

let tools: ValidatorPaths;
const rendered = {} as Record<'base' | 'dev' | 'prod', Rendered>;
let workDirectory: string;

async function kustomizeBuild(directory: string): Promise<string> {
  const { stdout } = await run(tools.kustomize, ['build', directory], { maxBuffer: 32 * 1024 * 1024 });
  return stdout;
}

function parseManifests(text: string): KubernetesObject[] {
  return YAML.parseAllDocuments(text)
    .map((document) => {
      if (document.errors.length > 0) throw document.errors[0];
      return document.toJS() as KubernetesObject | null;
    })
    .filter((object): object is KubernetesObject => object !== null);
}

interface KubeconformReport {
  resources: { kind: string; name: string; status: string; msg: string }[];
  summary: { valid: number; invalid: number; errors: number; skipped: number };
}

async function kubeconform(file: string, kubernetesVersion: string): Promise<{ exitCode: number; report: KubeconformReport }> {
  const args = [
    '-strict',
    '-summary',
    '-output',
    'json',
    '-kubernetes-version',
    kubernetesVersion,
    '-schema-location',
    tools.kubernetesSchemaLocation,
    file,
  ];
  try {
    const { stdout } = await run(tools.kubeconform, args, { maxBuffer: 32 * 1024 * 1024 });
    return { exitCode: 0, report: JSON.parse(stdout) as KubeconformReport };
  } catch (error) {
    const failure = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof failure.code !== 'number' || !failure.stdout) throw error;
    return { exitCode: failure.code, report: JSON.parse(failure.stdout) as KubeconformReport };
  }
}

beforeAll(async () => {
  tools = await provisionValidators((line) => process.stderr.write(`[provision-validators] ${line}\n`));
  // Rendered from a copy, so the dev overlay's git-ignored secrets.env can be made from the example without
  // touching the working tree (and so a developer's own secrets.env never leaks into the assertions).
  workDirectory = fs.mkdtempSync(path.join(os.tmpdir(), 'mtx-deploy-test-'));
  const kubernetesCopy = path.join(workDirectory, 'k8s');
  fs.cpSync(path.join(repositoryRoot, 'deploy', 'k8s'), kubernetesCopy, {
    recursive: true,
    filter: (source) => !['secrets.env', 'terminal-tls'].includes(path.basename(source)),
  });
  fs.copyFileSync(path.join(kubernetesCopy, 'overlays/dev/secrets.env.example'), path.join(kubernetesCopy, 'overlays/dev/secrets.env'));
  // The dev overlay's terminal TLS files, made as the Tiltfile makes them (deploy/tls/make-terminal-tls.sh).
  await run('sh', [terminalTlsScript, path.join(kubernetesCopy, 'overlays/dev/terminal-tls'), ...devTerminalNames]);
  const builds = { base: 'base', dev: 'overlays/dev', prod: 'overlays/prod' } as const;
  await Promise.all(
    (Object.keys(builds) as (keyof typeof builds)[]).map(async (name) => {
      const text = await kustomizeBuild(path.join(kubernetesCopy, builds[name]));
      const file = path.join(workDirectory, `${name}.yaml`);
      fs.writeFileSync(file, text);
      rendered[name] = { text, file, objects: parseManifests(text) };
    }),
  );
}, 10 * 60_000);

afterAll(() => {
  if (workDirectory) fs.rmSync(workDirectory, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------------------------

describe('kustomize renders every overlay', () => {
  it('renders base with the seven product services and their configuration', () => {
    const base = rendered.base;
    expect(
      all(base, 'Deployment')
        .map((object) => object.metadata.name)
        .sort(),
    ).toEqual([...productNames].sort());
    expect(
      all(base, 'Service')
        .map((object) => object.metadata.name)
        .sort(),
    ).toEqual([...productNames, ...terminalServices].sort());
    expect(all(base, 'ConfigMap')).toHaveLength(1);
    expect(all(base, 'ConfigMap')[0]!.metadata.name).toMatch(/^mtx-config-[a-z0-9]+$/);
    expect(all(base, 'Secret')).toHaveLength(0);
  });

  it('renders dev with every service, the simulators and its own datastores', () => {
    const dev = rendered.dev;
    const deployments = all(dev, 'Deployment').map((object) => object.metadata.name);
    expect(deployments.sort()).toEqual([...serviceNames, 'jaeger'].sort());
    expect(
      all(dev, 'Service')
        .map((object) => object.metadata.name)
        .sort(),
    ).toEqual([...serviceNames, ...terminalServices, 'jaeger', 'mongo', 'nats'].sort());
    expect(
      all(dev, 'StatefulSet')
        .map((object) => object.metadata.name)
        .sort(),
    ).toEqual(['mongo', 'nats']);
    expect(
      all(dev, 'Job')
        .map((object) => object.metadata.name)
        .sort(),
    ).toEqual(['mongo-init-replica-set', 'seed-demo']);
    for (const object of dev.objects) {
      if (object.kind !== 'Namespace') expect(object.metadata.namespace, `${object.kind} ${object.metadata.name}`).toBe('mtx-dev');
    }
  });

  it('renders prod with the product only, in its namespace', () => {
    const prod = rendered.prod;
    expect(
      all(prod, 'Deployment')
        .map((object) => object.metadata.name)
        .sort(),
    ).toEqual([...productNames].sort());
    expect(all(prod, 'StatefulSet')).toHaveLength(0);
    for (const name of [...simulatorNames, 'mongo', 'nats', 'jaeger', 'seed-demo']) {
      expect(
        prod.objects.some((object) => object.metadata.name === name),
        name,
      ).toBe(false);
    }
    for (const object of prod.objects) {
      if (object.kind !== 'Namespace') expect(object.metadata.namespace, `${object.kind} ${object.metadata.name}`).toBe('mtx');
    }
  });
});

describe('kubeconform validates the rendered manifests against the Kubernetes schemas, strictly', () => {
  for (const output of ['base', 'dev', 'prod'] as const) {
    for (const version of kubernetesSchemaSource.kubernetesVersions) {
      it(`accepts ${output} for Kubernetes ${version}`, async () => {
        const { exitCode, report } = await kubeconform(rendered[output].file, version);
        const problems = report.resources
          .filter((resource) => resource.status !== 'statusValid')
          .map((resource) => `${resource.kind} ${resource.name}: ${resource.msg}`);
        expect(problems).toEqual([]);
        expect(exitCode).toBe(0);
        // Every object was checked against a schema: none skipped for want of one.
        expect(report.summary).toEqual({ valid: rendered[output].objects.length, invalid: 0, errors: 0, skipped: 0 });
      });
    }
  }

  it('rejects a misspelt field and a wrongly typed value (the schemas are really applied)', async () => {
    const gateway = structuredClone(find(rendered.prod, 'Deployment', 'gateway'));
    gateway.spec.replicas = 'two';
    mainContainer(gateway).securityContext!.readOnlyRootFilesytem = true;
    const file = path.join(workDirectory, 'broken.yaml');
    fs.writeFileSync(file, YAML.stringify(gateway));
    const { exitCode, report } = await kubeconform(file, kubernetesSchemaSource.kubernetesVersions[0]);
    expect(exitCode).not.toBe(0);
    expect(report.summary.invalid).toBe(1);
    expect(report.resources[0]!.msg).toContain('readOnlyRootFilesytem');
    expect(report.resources[0]!.msg).toContain('/spec/replicas');
  });
});

describe('every workload is hardened', () => {
  for (const output of ['base', 'dev', 'prod'] as const) {
    it(`${output}: non-root, read-only, no privileges, seccomp, resources, /tmp from an emptyDir`, () => {
      const workloads = rendered[output].objects.filter((object) => workloadKinds.includes(object.kind));
      expect(workloads.length).toBeGreaterThan(0);
      for (const workload of workloads) {
        const label = `${workload.kind} ${workload.metadata.name}`;
        const pod = podSpec(workload);
        expect(pod.automountServiceAccountToken, label).toBe(false);
        expect(pod.securityContext?.runAsNonRoot, label).toBe(true);
        expect(typeof pod.securityContext?.runAsUser, label).toBe('number');
        expect(pod.securityContext?.runAsUser, label).not.toBe(0);
        expect(typeof pod.securityContext?.runAsGroup, label).toBe('number');
        expect(pod.securityContext?.seccompProfile?.type, label).toBe('RuntimeDefault');
        for (const container of [...pod.containers, ...(pod.initContainers ?? [])]) {
          const where = `${label} container ${container.name}`;
          const security = container.securityContext ?? {};
          expect(security.allowPrivilegeEscalation, where).toBe(false);
          expect(security.readOnlyRootFilesystem, where).toBe(true);
          expect(security.privileged ?? false, where).toBe(false);
          expect(security.capabilities?.drop, where).toContain('ALL');
          expect(security.capabilities?.add ?? [], where).toEqual([]);
          for (const resource of ['cpu', 'memory']) {
            expect(container.resources?.requests?.[resource], `${where} requests.${resource}`).toBeTruthy();
            expect(container.resources?.limits?.[resource], `${where} limits.${resource}`).toBeTruthy();
          }
          const tmp = container.volumeMounts?.find((mount) => mount.mountPath === '/tmp');
          expect(tmp, `${where} mounts /tmp`).toBeDefined();
          expect(pod.volumes?.find((volume) => volume.name === tmp!.name)?.emptyDir, `${where} /tmp is an emptyDir`).toBeDefined();
        }
      }
    });

    it(`${output}: each service runs as uid/gid 10001 under the token-less service account`, () => {
      const deployments = all(rendered[output], 'Deployment').filter((object) => object.metadata.name in services);
      for (const deployment of deployments) {
        const pod = podSpec(deployment);
        const label = deployment.metadata.name;
        expect(pod.securityContext, label).toMatchObject({ runAsNonRoot: true, runAsUser: 10001, runAsGroup: 10001, fsGroup: 10001 });
        expect(pod.serviceAccountName, label).toBe('mtx');
      }
      const accounts = all(rendered[output], 'ServiceAccount');
      expect(accounts.map((account) => account.metadata.name)).toEqual(['mtx']);
      expect((accounts[0] as unknown as { automountServiceAccountToken: boolean }).automountServiceAccountToken).toBe(false);
    });
  }

  it('dev: the namespace enforces the restricted Pod Security Standard the pods are written for', () => {
    expect(find(rendered.dev, 'Namespace', 'mtx-dev').metadata.labels).toMatchObject({
      'pod-security.kubernetes.io/enforce': 'restricted',
    });
  });
});

describe('services: probes, ports, configuration and secrets', () => {
  for (const output of ['base', 'dev', 'prod'] as const) {
    it(`${output}: probes match each service's protocol and port`, () => {
      for (const deployment of all(rendered[output], 'Deployment').filter((object) => object.metadata.name in services)) {
        const name = deployment.metadata.name;
        const convention = services[name]!;
        const container = mainContainer(deployment);
        const namedPort = (port: number | string) =>
          typeof port === 'number' ? port : container.ports?.find((candidate) => candidate.name === port)?.containerPort;
        for (const probe of [container.readinessProbe, container.livenessProbe, container.startupProbe]) {
          expect(probe, name).toBeDefined();
          if (convention.probe.kind === 'grpc') {
            // Native gRPC probe against grpc.health.v1; the port must be a number there.
            expect(probe!.grpc, name).toEqual({ port: convention.probe.port });
          } else {
            expect(namedPort(probe!.httpGet!.port), name).toBe(convention.probe.port);
          }
        }
        if (convention.probe.kind === 'http') {
          expect(container.livenessProbe!.httpGet!.path, name).toBe(convention.probe.liveness);
          expect(container.readinessProbe!.httpGet!.path, name).toBe(convention.probe.readiness);
        }
        expect(
          container.ports?.map((port) => port.containerPort),
          name,
        ).toContain(convention.port);
        expect(envValue(container, convention.portVariable)?.value, name).toBe(String(convention.port));
        expect(envValue(container, 'OTEL_SERVICE_NAME')?.value, name).toBe(name);
      }
    });

    it(`${output}: each Service selects its Deployment's pods and targets a port the container has`, () => {
      for (const deployment of all(rendered[output], 'Deployment').filter((object) => object.metadata.name in services)) {
        const name = deployment.metadata.name;
        const service = find(rendered[output], 'Service', name);
        const podLabels = deployment.spec.template.metadata.labels as Record<string, string>;
        for (const [key, value] of Object.entries(service.spec.selector as Record<string, string>))
          expect(podLabels[key], `${name} selector ${key}`).toBe(value);
        const containerPorts = mainContainer(deployment).ports ?? [];
        for (const port of service.spec.ports as { port: number; targetPort: string | number }[]) {
          const target = containerPorts.find(
            (candidate) => candidate.name === port.targetPort || candidate.containerPort === port.targetPort,
          );
          expect(target, `${name} targetPort ${port.targetPort}`).toBeDefined();
          expect(port.port, name).toBe(target!.containerPort);
        }
      }
    });

    it(`${output}: metrics on a named port of their own, scraped by annotation, never the port clients reach`, () => {
      for (const deployment of all(rendered[output], 'Deployment').filter((object) => object.metadata.name in services)) {
        const name = deployment.metadata.name;
        const container = mainContainer(deployment);
        const metricsPort = container.ports?.find((port) => port.name === 'metrics')?.containerPort;
        expect(metricsPort, name).toBeDefined();
        expect(metricsPort, name).not.toBe(services[name]!.port);
        expect(envValue(container, 'METRICS_PORT')?.value, name).toBe(String(metricsPort));
        expect(deployment.spec.template.metadata.annotations, name).toMatchObject({
          'prometheus.io/scrape': 'true',
          'prometheus.io/port': String(metricsPort),
          'prometheus.io/path': '/metrics',
        });
        const service = find(rendered[output], 'Service', name);
        expect(service.spec.ports, name).toContainEqual({ name: 'metrics', port: metricsPort, targetPort: 'metrics' });
      }
      // Nothing publishes the metrics ports outside the cluster: only the terminal Services may be load balancers.
      expect(all(rendered[output], 'Ingress')).toEqual([]);
      for (const service of all(rendered[output], 'Service')) {
        const published = output === 'prod' && terminalServices.includes(service.metadata.name);
        expect(published ? ['LoadBalancer'] : ['ClusterIP', undefined], service.metadata.name).toContain(service.spec.type);
      }
    });

    it(`${output}: configuration comes from the ConfigMap, secrets only by reference to mtx-secrets`, () => {
      const configMaps = all(rendered[output], 'ConfigMap');
      expect(configMaps).toHaveLength(1);
      const configMap = configMaps[0]!;
      // In a pod the services must listen on its address; the gateway alone defaults to loopback.
      expect(configMap.data).toMatchObject({ HOST: '0.0.0.0', GRPC_HOST: '0.0.0.0' });
      for (const key of [
        'MONGODB_URL',
        'MONGODB_DATABASE_PREFIX',
        'NATS_URL',
        'WALLET_GRPC_URL',
        'PAYMENTS_GRPC_URL',
        'BILLING_GRPC_URL',
        'EXECUTION_GRPC_URL',
        'CRYPTO_SANDBOX_URL',
        'GATEWAY_URL',
        'RATE_LIMIT_EXECUTION_PER_MINUTE',
        'RATE_LIMIT_OTHER_PER_MINUTE',
        'EXECUTION_DEADLINE_MS',
        'BROKER_SIM_LATENCY_MS',
        'LOG_LEVEL',
        'OTEL_EXPORTER_OTLP_ENDPOINT',
      ]) {
        expect(configMap.data?.[key], key).toBeTruthy();
      }
      for (const key of secretKeys) expect(configMap.data?.[key], key).toBeUndefined();
      const secretName = output === 'dev' ? generatedSecret('mtx-secrets').metadata.name : 'mtx-secrets';
      for (const workload of rendered[output].objects.filter(
        (object) => workloadKinds.includes(object.kind) && object.metadata.name in services,
      )) {
        const name = workload.metadata.name;
        const container = mainContainer(workload);
        expect(container.envFrom, name).toEqual([{ configMapRef: { name: configMap.metadata.name } }]);
        for (const variable of container.env ?? []) {
          // No literal secret, whatever the variable is called.
          if (secretKeys.includes(variable.name)) expect(variable.value, `${name} ${variable.name}`).toBeUndefined();
        }
        for (const key of convention(name).secrets) {
          expect(envValue(container, key)?.valueFrom?.secretKeyRef, `${name} ${key}`).toEqual({ name: secretName, key });
        }
      }
    });

    it(`${output}: one PodDisruptionBudget per service, allowing one disruption at a time`, () => {
      for (const deployment of all(rendered[output], 'Deployment').filter((object) => object.metadata.name in services)) {
        const name = deployment.metadata.name;
        const budget = find(rendered[output], 'PodDisruptionBudget', name);
        expect(budget.apiVersion).toBe('policy/v1');
        expect(budget.spec.minAvailable === 1 || budget.spec.maxUnavailable === 1, name).toBe(true);
        expect(budget.spec.selector.matchLabels, name).toEqual(deployment.spec.selector.matchLabels);
      }
    });

    it(`${output}: gateway, execution and both connectors autoscale (autoscaling/v2); the autoscaler owns their replica count`, () => {
      const autoscalers = all(rendered[output], 'HorizontalPodAutoscaler');
      expect(autoscalers.map((object) => object.metadata.name).sort()).toEqual([...autoscaled].sort());
      for (const autoscaler of autoscalers) {
        const name = autoscaler.metadata.name;
        expect(autoscaler.apiVersion).toBe('autoscaling/v2');
        expect(autoscaler.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name });
        expect(autoscaler.spec.maxReplicas).toBeGreaterThan(autoscaler.spec.minReplicas);
        expect(find(rendered[output], 'Deployment', name).spec.replicas, name).toBeUndefined();
      }
    });
  }
});

/** The dev overlay's generated Secret of that name (kustomize appends a content hash). */
function generatedSecret(name: string): KubernetesObject {
  const found = all(rendered.dev, 'Secret').find((secret) => new RegExp(`^${name}-[a-z0-9]+$`).test(secret.metadata.name));
  if (!found) throw new Error(`no Secret ${name}-<hash> in the dev overlay`);
  return found;
}

describe('terminal listeners: TLS, their own Service, published in prod', () => {
  for (const output of ['base', 'dev', 'prod'] as const) {
    it(`${output}: each connector listens on the pod's address with the key and certificate of mtx-terminal-tls`, () => {
      const tlsSecret = output === 'dev' ? generatedSecret('mtx-terminal-tls').metadata.name : 'mtx-terminal-tls';
      for (const [name, port] of Object.entries(terminalPorts)) {
        const deployment = find(rendered[output], 'Deployment', name);
        const container = mainContainer(deployment);
        expect(container.ports, name).toContainEqual({ name: 'terminal', containerPort: port });
        const setting = (variable: string) => envValue(container, variable)?.value;
        expect(setting('TERMINAL_LISTEN_HOST'), name).toBe('0.0.0.0');
        expect(setting('TERMINAL_LISTEN_PORT'), name).toBe(String(port));
        const mount = container.volumeMounts?.find((candidate) => setting('TERMINAL_TLS_KEY_FILE')?.startsWith(`${candidate.mountPath}/`));
        expect(mount, name).toBeDefined();
        expect(setting('TERMINAL_TLS_CERT_FILE'), name).toBe(`${mount!.mountPath}/tls.crt`);
        const volume = podSpec(deployment).volumes?.find((candidate) => candidate.name === mount!.name) as
          | { secret?: { secretName: string; items: { key: string }[] } }
          | undefined;
        expect(volume?.secret?.secretName, name).toBe(tlsSecret);
        expect(volume?.secret?.items.map((item) => item.key).sort(), name).toEqual(['tls.crt', 'tls.key']);
        // Its own Service, with the terminal port alone: publishing it publishes neither health nor metrics.
        const service = find(rendered[output], 'Service', `${name}-terminal`);
        expect(service.spec.ports, name).toEqual([{ name: 'terminal', port, targetPort: 'terminal' }]);
        expect(service.spec.selector, name).toEqual(deployment.spec.selector.matchLabels);
        expect(service.spec.type, name).toBe(output === 'prod' ? 'LoadBalancer' : undefined);
        // No connector setting of the gRPC session path is left.
        for (const removed of ['BROKER_SIM_GRPC_URL', 'CONNECTOR_SESSIONS_MAX', 'BROKER_LOGIN_DEADLINE_MS'])
          expect(rendered[output].text, removed).not.toContain(removed);
      }
    });
  }

  it('dev: broker-sim dials the terminal Services, trusting the CA that signed their certificate', async () => {
    const container = mainContainer(find(rendered.dev, 'Deployment', 'broker-sim'));
    const setting = (variable: string) => envValue(container, variable)?.value;
    expect(setting('TERMINAL_CONNECTOR_MT4_ADDRESSES')).toBe('connector-mt4-terminal:50080');
    expect(setting('TERMINAL_CONNECTOR_MT5_ADDRESSES')).toBe('connector-mt5-terminal:50081');
    const secret = generatedSecret('mtx-terminal-tls') as KubernetesObject & { type?: string };
    expect(secret.type).toBe('kubernetes.io/tls');
    const file = (key: string) => {
      const written = path.join(workDirectory, `terminal-${key}`);
      fs.writeFileSync(written, Buffer.from(secret.data![key]!, 'base64'));
      return written;
    };
    const caFile = setting('TERMINAL_TLS_CA_FILE')!;
    expect(path.basename(caFile)).toBe('ca.crt');
    // The certificate chains to the CA and covers each address broker-sim dials.
    await run('openssl', ['verify', '-CAfile', file('ca.crt'), file('tls.crt')]);
    const { stdout } = await run('openssl', ['x509', '-in', file('tls.crt'), '-noout', '-ext', 'subjectAltName']);
    for (const address of [setting('TERMINAL_CONNECTOR_MT4_ADDRESSES')!, setting('TERMINAL_CONNECTOR_MT5_ADDRESSES')!])
      expect(stdout).toContain(`DNS:${address.split(':')[0]}`);
  });

  it('prod: the network policies admit the terminals on the terminal ports, and the connectors reach no trade server', () => {
    const policies = all(rendered.prod, 'NetworkPolicy');
    const admitting = policies.find((policy) => policy.metadata.name === 'connectors-allow-terminals')!;
    expect(admitting.spec.podSelector.matchExpressions[0].values.sort()).toEqual(Object.keys(terminalPorts).sort());
    expect(admitting.spec.ingress).toEqual([{ ports: Object.values(terminalPorts).map((port) => ({ protocol: 'TCP', port })) }]);
    const internet = policies.find((policy) => policy.metadata.name === 'mtx-allow-internet-egress')!;
    expect(internet.spec.podSelector.matchExpressions[0].values).toEqual(['payments']);
  });
});

function convention(name: string): ServiceConvention {
  const found = services[name];
  if (!found) throw new Error(`unknown service ${name}`);
  return found;
}

describe('the prod overlay', () => {
  it("keeps the connectors' claims on all three NATS nodes, and the dev overlay on its single one", () => {
    const setting = (overlay: typeof rendered.prod) =>
      all(overlay, 'ConfigMap').find((map) => map.metadata.name.startsWith('mtx-config'))?.data?.CONNECTOR_CLAIMS_REPLICAS;
    expect(setting(rendered.prod)).toBe('3');
    expect(setting(rendered.dev) ?? '1').toBe('1');
  });

  it('runs at least two replicas of every service, autoscaled ones included', () => {
    for (const deployment of all(rendered.prod, 'Deployment')) {
      const name = deployment.metadata.name;
      const autoscaler = rendered.prod.objects.find((object) => object.kind === 'HorizontalPodAutoscaler' && object.metadata.name === name);
      const minimum = autoscaler ? autoscaler.spec.minReplicas : deployment.spec.replicas;
      expect(minimum, name).toBeGreaterThanOrEqual(2);
    }
  });

  it('spreads every service over zones and nodes', () => {
    for (const deployment of all(rendered.prod, 'Deployment')) {
      const constraints = podSpec(deployment).topologySpreadConstraints ?? [];
      expect(constraints.map((constraint) => constraint.topologyKey).sort(), deployment.metadata.name).toEqual([
        'kubernetes.io/hostname',
        'topology.kubernetes.io/zone',
      ]);
      for (const constraint of constraints) expect(constraint.matchLabelKeys).toContain('app.kubernetes.io/name');
    }
  });

  it('holds no secret value: no Secret at all, credentials only by reference', () => {
    const secrets = all(rendered.prod, 'Secret');
    for (const secret of secrets) {
      expect(secret.data ?? {}, secret.metadata.name).toEqual({});
      expect(secret.stringData ?? {}, secret.metadata.name).toEqual({});
    }
    expect(secrets).toHaveLength(0);
    for (const deployment of all(rendered.prod, 'Deployment')) {
      // The operator-generated connection string (it carries the password) overrides the ConfigMap's URL.
      expect(envValue(mainContainer(deployment), 'MONGODB_URL')?.valueFrom?.secretKeyRef, deployment.metadata.name).toEqual({
        name: 'mtx-mongodb-admin-mtx-app',
        key: 'connectionString.standard',
      });
    }
    expect(rendered.prod.text).not.toContain('local-only');
  });

  it('denies all traffic to and from the mtx pods by default, then allows DNS and the designed flows', () => {
    const policies = all(rendered.prod, 'NetworkPolicy');
    const defaultDeny = policies.find((policy) => policy.metadata.name === 'mtx-default-deny')!;
    expect(defaultDeny.spec.policyTypes.sort()).toEqual(['Egress', 'Ingress']);
    expect(defaultDeny.spec.ingress).toBeUndefined();
    expect(defaultDeny.spec.egress).toBeUndefined();
    const selector = defaultDeny.spec.podSelector.matchLabels as Record<string, string>;
    // The default deny only protects pods that carry its selector's labels: every mtx pod must.
    for (const deployment of all(rendered.prod, 'Deployment')) {
      expect(deployment.spec.template.metadata.labels, deployment.metadata.name).toMatchObject(selector);
    }
    // Clients reach the gateway's API port only; the metrics ports admit the monitoring namespace alone.
    const clients = policies.find((policy) => policy.metadata.name === 'gateway-allow-clients')!;
    expect(clients.spec.ingress).toEqual([{ ports: [{ protocol: 'TCP', port: 8080 }] }]);
    const scrape = policies.find((policy) => policy.metadata.name === 'mtx-allow-metrics-scrape')!;
    expect(scrape.spec.ingress).toEqual([
      {
        from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }],
        ports: [{ protocol: 'TCP', port: 9464, endPort: 9473 }],
      },
    ]);
    const dns = policies.find((policy) => policy.metadata.name === 'mtx-allow-dns')!;
    expect(dns.spec.egress[0].ports).toEqual(expect.arrayContaining([{ protocol: 'UDP', port: 53 }]));
    const callersOf = (service: string): string[] => {
      const policy = policies.find(
        (candidate) =>
          candidate.spec.podSelector?.matchLabels?.['app.kubernetes.io/name'] === service && candidate.spec.policyTypes.includes('Ingress'),
      );
      if (!policy) return [];
      const peers = policy.spec.ingress.flatMap(
        (rule: { from?: { podSelector?: { matchLabels?: Record<string, string>; matchExpressions?: { values: string[] }[] } }[] }) =>
          rule.from ?? [],
      );
      return peers.flatMap(
        (peer: { podSelector?: { matchLabels?: Record<string, string>; matchExpressions?: { values: string[] }[] } }) => [
          ...Object.values(peer.podSelector?.matchLabels ?? {}),
          ...(peer.podSelector?.matchExpressions ?? []).flatMap((expression) => expression.values),
        ],
      );
    };
    // The gRPC clients each service's configuration declares (its *_GRPC_URL settings).
    expect(callersOf('wallet').sort()).toEqual(['billing', 'gateway', 'payments']);
    expect(callersOf('billing').sort()).toEqual(['execution', 'gateway']);
    expect(callersOf('execution').sort()).toEqual(['billing', 'gateway']);
    expect(callersOf('payments')).toEqual(['gateway']);
    // Every gRPC backend has an ingress policy; without one, the default deny would cut it off entirely.
    for (const name of productNames.filter((candidate) => services[candidate]!.probe.kind === 'grpc'))
      expect(callersOf(name), name).toContain('gateway');
  });

  it('expects exactly the MongoDB, NATS and secrets that deploy/k8s/dependencies provides', () => {
    const dependencies = (file: string) =>
      parseManifests(fs.readFileSync(path.join(repositoryRoot, 'deploy/k8s/dependencies', file), 'utf8'));
    const [mongodb] = dependencies('mongodb-community.yaml');
    expect(mongodb!.kind).toBe('MongoDBCommunity');
    expect(mongodb!.spec.version).toMatch(/^7\./);
    expect(mongodb!.spec.members).toBeGreaterThanOrEqual(3);
    const user = (mongodb!.spec.users as { name: string; db: string; passwordSecretRef: { name: string } }[])[0]!;
    // The operator names the connection-string Secret "<resource>-<auth db>-<user>".
    const connectionSecret = `${mongodb!.metadata.name}-${user.db}-${user.name}`;
    for (const deployment of all(rendered.prod, 'Deployment')) {
      expect(envValue(mainContainer(deployment), 'MONGODB_URL')?.valueFrom?.secretKeyRef?.name, deployment.metadata.name).toBe(
        connectionSecret,
      );
    }
    const policies = all(rendered.prod, 'NetworkPolicy');
    const mongoPeers = policies.flatMap((policy) =>
      (policy.spec.egress ?? []).flatMap((rule: { to?: { podSelector?: { matchLabels?: Record<string, string> } }[] }) => rule.to ?? []),
    );
    expect(
      mongoPeers.some(
        (peer: { podSelector?: { matchLabels?: Record<string, string> } }) =>
          peer.podSelector?.matchLabels?.app === `${mongodb!.metadata.name}-svc`,
      ),
    ).toBe(true);

    const nats = YAML.parse(fs.readFileSync(path.join(repositoryRoot, 'deploy/k8s/dependencies/nats-values.yaml'), 'utf8')) as {
      config: { cluster: { enabled: boolean; replicas: number }; jetstream: { enabled: boolean } };
      container: { image: { tag: string } };
    };
    expect(nats.config.cluster).toEqual({ enabled: true, replicas: 3 });
    expect(nats.config.jetstream.enabled).toBe(true);
    expect(nats.container.image.tag).toBe(`${natsLine}-alpine`);
    // Helm release "nats" → Service nats.
    expect(all(rendered.prod, 'ConfigMap')[0]!.data!.NATS_URL).toBe('nats://nats:4222');

    const externalSecrets = dependencies('external-secrets.yaml');
    expect(externalSecrets.every((object) => object.kind === 'ExternalSecret' && !object.data && !object.stringData)).toBe(true);
    const byTarget = new Map(
      externalSecrets.map((object) => [
        object.spec.target.name as string,
        (object.spec.data as { secretKey: string }[]).map((entry) => entry.secretKey).sort(),
      ]),
    );
    expect(byTarget.get('mtx-secrets')).toEqual([...secretKeys].sort());
    expect(byTarget.get(user.passwordSecretRef.name)).toEqual(['password']);
  });

  it('points the images at a registry, with a version tag', () => {
    for (const deployment of all(rendered.prod, 'Deployment')) {
      expect(mainContainer(deployment).image, deployment.metadata.name).toMatch(
        new RegExp(`^[a-z0-9.-]+\\.[a-z]+/mtx/${deployment.metadata.name}:[0-9]`),
      );
    }
  });
});

describe('the dev overlay', () => {
  it('generates mtx-secrets from secrets.env and the Deployments reference the generated name', () => {
    const secrets = all(rendered.dev, 'Secret');
    expect(secrets).toHaveLength(2);
    const secret = generatedSecret('mtx-secrets');
    expect(Object.keys(secret.data ?? {}).sort()).toEqual([...secretKeys].sort());
    const example = fs.readFileSync(path.join(repositoryRoot, 'deploy/k8s/overlays/dev/secrets.env.example'), 'utf8');
    for (const key of secretKeys) {
      const line = example.split('\n').find((candidate) => candidate.startsWith(`${key}=`))!;
      expect(Buffer.from(secret.data![key]!, 'base64').toString('utf8'), key).toBe(line.slice(key.length + 1));
    }
    const gitignore = fs.readFileSync(path.join(repositoryRoot, 'deploy/k8s/overlays/dev/.gitignore'), 'utf8');
    expect(gitignore.split('\n')).toEqual(expect.arrayContaining(['secrets.env', 'terminal-tls/']));
  });

  it('runs MongoDB 7 as a replica set that a Job initiates, NATS with JetStream, and Jaeger with OTLP', () => {
    const mongo = mainContainer(find(rendered.dev, 'StatefulSet', 'mongo'));
    expect(mongo.image).toMatch(/^mongo:7/);
    expect(mongo.args).toEqual(expect.arrayContaining(['--replSet', 'rs0']));
    const initiate = mainContainer(find(rendered.dev, 'Job', 'mongo-init-replica-set'));
    expect(initiate.command!.join(' ')).toContain("rs.initiate({ _id: 'rs0', members: [{ _id: 0, host: 'mongo-0.mongo:27017' }] })");
    const configMap = all(rendered.dev, 'ConfigMap')[0]!;
    expect(configMap.data!.MONGODB_URL).toContain('replicaSet=rs0');
    const nats = mainContainer(find(rendered.dev, 'StatefulSet', 'nats'));
    expect(nats.image).toBe(`nats:${natsLine}-alpine`);
    expect(nats.args).toContain('--jetstream');
    const jaeger = mainContainer(find(rendered.dev, 'Deployment', 'jaeger'));
    expect(jaeger.ports!.map((port) => port.containerPort)).toEqual(expect.arrayContaining([4317, 4318, 16686]));
    expect(configMap.data!.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://jaeger:4318');
  });

  it('runs one replica of each service, from locally built :dev images', () => {
    for (const deployment of all(rendered.dev, 'Deployment').filter((object) => object.metadata.name in services)) {
      const name = deployment.metadata.name;
      const autoscaler = rendered.dev.objects.find((object) => object.kind === 'HorizontalPodAutoscaler' && object.metadata.name === name);
      expect(autoscaler ? autoscaler.spec.minReplicas : deployment.spec.replicas, name).toBe(1);
      expect(mainContainer(deployment).image, name).toBe(`mtx/${name}:dev`);
    }
  });

  it('seeds the demo customer with the shared seed script', () => {
    const seed = mainContainer(find(rendered.dev, 'Job', 'seed-demo'));
    expect(seed.command).toEqual(['node', '--import', 'tsx', 'services/devstack/scripts/seed-demo.ts']);
    expect(seed.image).toBe('mtx/gateway:dev');
  });
});

// ---------------------------------------------------------------------------------------------------------------

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string; args?: Record<string, string> };
  command?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test?: string[]; disable?: boolean };
  depends_on?: Record<string, { condition: string; required: boolean }>;
  profiles?: string[];
  read_only?: boolean;
  user?: string;
  tmpfs?: string[];
  cap_drop?: string[];
  mem_limit?: string | number;
  deploy?: { resources?: { limits?: { memory?: string | number } } };
  ports?: { target: number; published?: string }[];
  stop_signal?: string;
}
interface ComposeProject {
  services: Record<string, ComposeService>;
  'x-disabled-services': string[];
}

async function composeInspect(profiles: string): Promise<ComposeProject> {
  const { stdout } = await run(tools.composeInspector, ['-file', path.join(repositoryRoot, 'docker-compose.yml'), '-profiles', profiles], {
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout) as ComposeProject;
}

async function dockerComposeAvailable(): Promise<boolean> {
  try {
    await run('docker', ['compose', 'version'], { timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

describe('docker-compose.yml', () => {
  const composeFile = path.join(repositoryRoot, 'docker-compose.yml');

  it('conforms to the Compose Specification JSON Schema', async () => {
    const { stdout: schemaText } = await run(tools.composeInspector, ['-print-schema'], { maxBuffer: 16 * 1024 * 1024 });
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
    // compose-go registers a "duration" format (Go durations such as 10s, 1m30s).
    ajv.addFormat('duration', /^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$/);
    const validate = ajv.compile(JSON.parse(schemaText) as object);
    const document = YAML.parse(fs.readFileSync(composeFile, 'utf8'), { merge: true }) as unknown;
    const valid = validate(document);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    // A compose file with a misspelt key fails the same validation.
    expect(validate({ services: { wallet: { image: 'x', helthcheck: { test: ['CMD', 'true'] } } } })).toBe(false);
  });

  it('loads in compose-go, as `docker compose config` does, with each combination of profiles', async () => {
    const byDefault = await composeInspect('');
    expect(Object.keys(byDefault.services).sort()).toEqual([...productNames, 'terminal-tls', 'mongo', 'nats', 'jaeger'].sort());
    expect(byDefault['x-disabled-services'].sort()).toEqual(
      [...simulatorNames, 'seed', 'nats-1', 'nats-2', 'nats-3', 'prometheus', 'grafana'].sort(),
    );
    const withSimulators = await composeInspect('sim');
    expect(Object.keys(withSimulators.services).sort()).toEqual(
      [...serviceNames, 'seed', 'terminal-tls', 'mongo', 'nats', 'jaeger'].sort(),
    );
    const everything = await composeInspect('sim,nats-cluster');
    expect(Object.keys(everything.services).sort()).toEqual(
      [...serviceNames, 'seed', 'terminal-tls', 'mongo', 'nats', 'nats-1', 'nats-2', 'nats-3', 'jaeger'].sort(),
    );
    for (const [name, service] of Object.entries(everything.services)) {
      if (simulatorNames.includes(name) || name === 'seed') expect(service.profiles, name).toEqual(['sim']);
      else if (name.startsWith('nats-')) expect(service.profiles, name).toEqual(['nats-cluster']);
      else expect(service.profiles ?? [], name).toEqual([]);
    }
    // Where a Docker CLI with the compose plugin is installed, it must agree (it uses compose-go too).
    if (await dockerComposeAvailable()) {
      await run('docker', ['compose', '-f', composeFile, '--profile', 'sim', '--profile', 'nats-cluster', 'config', '-q'], {
        cwd: repositoryRoot,
      });
    }
  });

  it('fails to load when a dependency is missing (compose-go checks consistency, not only the schema)', async () => {
    const broken = path.join(workDirectory, 'broken-compose.yml');
    fs.writeFileSync(broken, 'services:\n  wallet:\n    image: x\n    depends_on:\n      mongo: {condition: service_healthy}\n');
    await expect(run(tools.composeInspector, ['-file', broken])).rejects.toMatchObject({
      stderr: expect.stringContaining('depends on undefined service "mongo"'),
    });
  });

  it('builds every service from the one Dockerfile, hardened, limited, health-checked, waiting on healthy dependencies', async () => {
    const project = await composeInspect('*');
    for (const name of serviceNames) {
      const service = project.services[name]!;
      const convention = services[name]!;
      expect(service.build, name).toMatchObject({
        context: repositoryRoot,
        dockerfile: 'deploy/docker/Dockerfile',
        args: { SERVICE: name },
      });
      expect(service.image, name).toMatch(new RegExp(`^mtx/${name}:`));
      expect(service.read_only, name).toBe(true);
      expect(service.user, name).toBe('10001');
      expect(
        service.tmpfs?.some((mount) => mount.startsWith('/tmp')),
        name,
      ).toBe(true);
      expect(service.cap_drop, name).toEqual(['ALL']);
      expect(service.stop_signal, name).toBe('SIGTERM');
      expect(service.mem_limit ?? service.deploy?.resources?.limits?.memory, name).toBeTruthy();
      expect(service.environment?.OTEL_SERVICE_NAME, name).toBe(name);
      expect(service.environment?.OTEL_EXPORTER_OTLP_ENDPOINT, name).toBe('http://jaeger:4318');
      expect(service.environment?.[convention.portVariable], name).toBe(String(convention.port));
      expect(service.environment?.MONGODB_URL, name).toBe('mongodb://mongo:27017/?replicaSet=rs0');
      expect(service.environment, name).toMatchObject({ HOST: '0.0.0.0', GRPC_HOST: '0.0.0.0' });
      for (const key of [
        'NATS_URL',
        'WALLET_GRPC_URL',
        'PAYMENTS_GRPC_URL',
        'BILLING_GRPC_URL',
        'EXECUTION_GRPC_URL',
        'CRYPTO_SANDBOX_URL',
        'GATEWAY_URL',
      ]) {
        expect(service.environment?.[key], `${name} ${key}`).toBeTruthy();
      }
      for (const key of convention.secrets) expect(service.environment?.[key], `${name} ${key}`).toBeTruthy();
      // The health check is the shipped script against the service's own port and protocol.
      const target =
        convention.probe.kind === 'grpc'
          ? `grpc://127.0.0.1:${convention.port}`
          : `http://127.0.0.1:${convention.probe.port}${convention.probe.readiness}`;
      expect(service.healthcheck?.test, name).toEqual(['CMD', 'node', '/app/deploy/docker/healthcheck.mjs', target]);
      // The operations listener is on the compose network only: never published to the host.
      const metricsPort = Number(service.environment?.METRICS_PORT);
      expect(metricsPort, name).toBeGreaterThan(0);
      expect(JSON.stringify(service.ports ?? []), name).not.toContain(String(metricsPort));
      const dependencies = Object.entries(service.depends_on ?? {});
      expect(service.depends_on?.mongo, name).toEqual({ condition: 'service_healthy', required: true });
      expect(service.depends_on?.nats, name).toEqual({ condition: 'service_healthy', required: true });
      for (const [dependency, { condition }] of dependencies) {
        // Tracing is best-effort; the TLS one-shot must have finished; everything else must be healthy first.
        const expected = { jaeger: 'service_started', 'terminal-tls': 'service_completed_successfully' }[dependency] ?? 'service_healthy';
        expect(condition, `${name} → ${dependency}`).toBe(expected);
      }
    }
    expect(project.services.gateway!.ports?.map((port) => port.target)).toContain(8080);
  });

  it("runs MongoDB 7 as a self-initiating replica set, NATS (the local pin's line) with JetStream (and a three-node cluster), and Jaeger", async () => {
    const project = await composeInspect('*');
    const mongo = project.services.mongo!;
    expect(mongo.image).toMatch(/^mongo:7/);
    expect(mongo.command).toEqual(expect.arrayContaining(['--replSet', 'rs0']));
    expect(mongo.healthcheck!.test!.join(' ')).toContain("rs.initiate({ _id: 'rs0', members: [{ _id: 0, host: 'mongo:27017' }] })");
    expect(project.services.nats!.image).toBe(`nats:${natsLine}-alpine`);
    expect(project.services.nats!.command).toContain('--jetstream');
    for (const node of ['nats-1', 'nats-2', 'nats-3']) {
      expect(project.services[node]!.image, node).toBe(`nats:${natsLine}-alpine`);
      const command = project.services[node]!.command!;
      expect(command, node).toContain('--jetstream');
      expect(command, node).toContain('--cluster_name=mtx-nats');
      expect(command, node).toContain(`--name=${node}`);
      expect(command, node).toContain('--routes=nats://nats-1:6222,nats://nats-2:6222,nats://nats-3:6222');
      expect(project.services[node]!.healthcheck?.test, node).toBeDefined();
    }
    expect(project.services.jaeger!.ports!.map((port) => port.target).sort((left, right) => left - right)).toEqual([4317, 4318, 16686]);
    for (const name of ['mongo', 'nats', 'jaeger']) expect(project.services[name]!.deploy?.resources?.limits?.memory, name).toBeTruthy();
    const seed = project.services.seed!;
    expect(seed.command).toEqual(['node', '--import', 'tsx', 'services/devstack/scripts/seed-demo.ts']);
    expect(Object.keys(seed.depends_on!)).toEqual(expect.arrayContaining(['gateway', 'broker-sim', 'crypto-sandbox']));
  });

  it("runs the terminal listeners over TLS with the one-shot's certificate, which broker-sim's EAs trust", async () => {
    const project = await composeInspect('sim');
    const make = project.services['terminal-tls']!;
    expect(make.command!.join(' ')).toContain('make-terminal-tls.sh /tls connector-mt4 connector-mt5');
    for (const [name, port] of Object.entries(terminalPorts)) {
      const connector = project.services[name]!;
      expect(connector.environment, name).toMatchObject({
        TERMINAL_LISTEN_HOST: '0.0.0.0',
        TERMINAL_LISTEN_PORT: String(port),
        TERMINAL_TLS_KEY_FILE: '/tls/tls.key',
        TERMINAL_TLS_CERT_FILE: '/tls/tls.crt',
      });
      expect(
        connector.ports?.map((published) => published.target),
        name,
      ).toContain(port);
      expect(connector.depends_on?.['terminal-tls'], name).toEqual({ condition: 'service_completed_successfully', required: true });
      expect(connector.environment?.BROKER_SIM_GRPC_URL, name).toBeUndefined();
    }
    const brokerSim = project.services['broker-sim']!;
    expect(brokerSim.environment).toMatchObject({
      TERMINAL_CONNECTOR_MT4_ADDRESSES: 'connector-mt4:50080',
      TERMINAL_CONNECTOR_MT5_ADDRESSES: 'connector-mt5:50081',
      TERMINAL_TLS_CA_FILE: '/tls/ca.crt',
    });
    expect(brokerSim.environment?.TERMINAL_HOST_SEAL_KEY).toBe(project.services.execution!.environment?.TERMINAL_HOST_SEAL_KEY);
    expect(brokerSim.environment?.NATS_URL).toBeTruthy();
  });

  it('shares the service settings through YAML anchors', () => {
    const text = fs.readFileSync(composeFile, 'utf8');
    expect(text).toContain('x-service-defaults: &service-defaults');
    expect(text.match(/<<: \*service-defaults/g)?.length).toBe(serviceNames.length + 1);
    expect(text.match(/<<: \*service-environment/g)?.length).toBe(serviceNames.length + 1);
  });
});

// ---------------------------------------------------------------------------------------------------------------

interface DockerfileCommand {
  instruction: string;
  text: string;
  commandLine?: string[];
  shellForm?: boolean;
  sources?: string[];
  destination?: string;
  from?: string;
  parents?: boolean;
  environment?: Record<string, string>;
  arguments?: Record<string, string | null>;
  ports?: string[];
  user?: string;
  path?: string;
  signal?: string;
  test?: string[];
}
interface DockerfileReport {
  metaArguments: Record<string, string | null>;
  stages: { name: string; base: string; commands: DockerfileCommand[] }[];
  parserWarnings: string[];
  checks: { service: string; target: string; warnings: { rule: string; detail: string }[]; error?: string }[];
}

const dockerfilePath = path.join(repositoryRoot, 'deploy/docker/Dockerfile');

/** BuildKit's reading of the Dockerfile, and its checks for each SERVICE value and target. */
async function inspectDockerfile(serviceValues: string[], targets: string[]): Promise<DockerfileReport> {
  const args = ['-dockerfile', dockerfilePath, '-image', 'node:24-bookworm-slim'];
  for (const service of serviceValues) args.push('-service', service);
  for (const target of targets) args.push('-target', target);
  const { stdout } = await run(tools.dockerfileInspector, args, { maxBuffer: 32 * 1024 * 1024 });
  return JSON.parse(stdout) as DockerfileReport;
}

/** .dockerignore semantics: patterns in order, the last match wins, `!` re-includes, a match on a folder covers what is in it. */
function dockerIgnored(patterns: string[], file: string): boolean {
  const toRegex = (pattern: string) =>
    new RegExp(
      `^${pattern
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*\*\/?/g, '\u0000')
        .replace(/\*/g, '[^/]*')
        .replace(/\?/g, '[^/]')
        // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is the placeholder set two lines above.
        .replace(/\u0000/g, '(.*/)?')
        .replace(/\(\.\*\/\)\?$/, '.*')}$`,
    );
  const candidates = file.split('/').map((_, index, parts) => parts.slice(0, index + 1).join('/'));
  let ignored = false;
  for (const raw of patterns) {
    const negated = raw.startsWith('!');
    const regex = toRegex(negated ? raw.slice(1) : raw);
    if (candidates.some((candidate) => regex.test(candidate))) ignored = !negated;
  }
  return ignored;
}

describe('deploy/docker/Dockerfile, as BuildKit reads it', () => {
  let dockerfile: DockerfileReport;
  const stage = (name: string) => {
    const found = dockerfile.stages.find((candidate) => candidate.name === name);
    if (!found) throw new Error(`no stage ${name}`);
    return found;
  };
  const commands = (stageName: string, instruction: string) =>
    stage(stageName).commands.filter((command) => command.instruction === instruction);

  beforeAll(async () => {
    dockerfile = await inspectDockerfile([], []);
  });

  it('builds every service, for production and for Tilt, with no BuildKit check failing', async () => {
    const report = await inspectDockerfile(serviceNames, ['runtime', 'development']);
    expect(report.parserWarnings).toEqual([]);
    expect(report.checks).toHaveLength(serviceNames.length * 2);
    for (const check of report.checks) {
      expect(check.error, `${check.service}/${check.target}`).toBeUndefined();
      expect(check.warnings, `${check.service}/${check.target}`).toEqual([]);
    }
  });

  it('refuses a build without a valid SERVICE', async () => {
    const report = await inspectDockerfile(['', 'not-a-service'], ['runtime']);
    expect(report.checks[0]!.error).toContain('service-');
    expect(report.checks[1]!.error).toContain('service-not-a-service');
  });

  it('is multi-stage on node:24-bookworm-slim, with SERVICE as a global build argument', () => {
    expect(fs.readFileSync(dockerfilePath, 'utf8').split('\n')[0]).toMatch(/^# syntax=docker\/dockerfile:1\.\d+$/);
    expect(dockerfile.metaArguments).toEqual({ SERVICE: null, NODE_IMAGE: 'node:24-bookworm-slim' });
    expect(stage('dependencies').base).toBe('${NODE_IMAGE}');
    expect(stage('runtime-base').base).toBe('${NODE_IMAGE}');
    expect(dockerfile.stages.at(-1)).toMatchObject({ name: 'runtime', base: 'service-${SERVICE}' });
    expect(stage('development').base).toBe('service-${SERVICE}');
  });

  it('installs the whole workspace with npm ci from the manifests, then prunes dev dependencies but keeps tsx', () => {
    const copies = commands('dependencies', 'COPY');
    expect(copies.map((copy) => copy.sources)).toEqual([['package.json', 'package-lock.json'], ['services/*/package.json']]);
    expect(copies[1]!.parents).toBe(true);
    expect(commands('dependencies', 'RUN').map((command) => command.commandLine!.join(' ').trim())).toEqual(['npm ci']);
    const prune = commands('production-dependencies', 'RUN')[0]!.commandLine!.join(' ');
    expect(prune).toContain('npm pkg delete devDependencies.tsx');
    expect(prune).toContain('npm pkg set "dependencies.tsx=${TSX_VERSION}"');
    expect(prune).toContain('npm prune --omit=dev');
    // tsx must be a root devDependency for that step to mean anything.
    const manifest = JSON.parse(fs.readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    expect(manifest.devDependencies.tsx).toBeDefined();
    expect(commands('runtime-base', 'COPY').find((copy) => copy.from === 'production-dependencies')?.sources).toEqual(['/app']);
  });

  it('runs as uid 10001 with a read-only-friendly environment, SIGTERM and an exec-form command', () => {
    const environment = Object.assign({}, ...commands('runtime-base', 'ENV').map((command) => command.environment)) as Record<
      string,
      string
    >;
    expect(environment).toMatchObject({
      NODE_ENV: 'production',
      HOST: '0.0.0.0',
      GRPC_HOST: '0.0.0.0',
      HOME: '/tmp',
      TMPDIR: '/tmp',
      TSX_TSCONFIG_PATH: '/app/tsconfig.json',
      OTEL_SERVICE_NAME: '${SERVICE}',
    });
    expect(
      commands('runtime-base', 'RUN').some((command) => command.commandLine!.join(' ').includes('useradd --uid 10001 --gid 10001')),
    ).toBe(true);
    expect(commands('runtime-base', 'STOPSIGNAL').map((command) => command.signal)).toEqual(['SIGTERM']);
    expect(commands('runtime-base', 'WORKDIR').at(-1)!.path).toBe('/app/services/${SERVICE}');
    expect(commands('runtime', 'USER').at(-1)!.user).toBe('10001:10001');
    const command = commands('runtime', 'CMD').at(-1)!;
    expect(command.shellForm).toBe(false);
    // From /app/services/<name>: the service's bundle, compiled in the build stage; no transpiler at run time.
    expect(command.commandLine!.slice(0, 2)).toEqual(['sh', '-c']);
    expect(command.commandLine![2]).toMatch(/^exec node .* dist\/main\.js$/);
    expect(
      commands('build', 'RUN').some((run) => run.commandLine!.join(' ').includes('services/devstack/scripts/build.ts "${SERVICE}"')),
    ).toBe(true);
    expect(commands('runtime-base', 'COPY').some((copy) => JSON.stringify(copy).includes('/app/services/${SERVICE}/dist'))).toBe(true);
    const development = commands('development', 'CMD').at(-1)!;
    expect(development.shellForm).toBe(false);
    expect(development.commandLine).toEqual(expect.arrayContaining(['watch', 'src/main.ts']));
    expect(commands('development', 'USER').at(-1)!.user).toBe('10001:10001');
  });

  it("starts Node itself as the container's process, with the image's heap sizes", async () => {
    const [shell, flag, script] = commands('runtime', 'CMD').at(-1)!.commandLine!;
    const imageEnvironment = Object.assign({}, ...commands('runtime', 'ENV').map((command) => command.environment));
    expect(imageEnvironment.NODE_INITIAL_OLD_SPACE_MB).toMatch(/^[1-9][0-9]*$/);
    expect(imageEnvironment.NODE_MAX_SEMI_SPACE_MB).toMatch(/^[1-9][0-9]*$/);
    // The service's folder as the image lays it out, with a bundle that reports how it was started.
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'mtx-cmd-'));
    fs.mkdirSync(path.join(folder, 'dist'));
    fs.writeFileSync(
      path.join(folder, 'dist', 'main.js'),
      'process.stdout.write(JSON.stringify({ pid: process.pid, execArgv: process.execArgv, script: process.argv[1] }))',
    );
    const start = async (oldSpaceMb: string | undefined, semiSpaceMb: string | undefined = oldSpaceMb) => {
      const env = {
        PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`,
        ...(oldSpaceMb === undefined ? {} : { NODE_INITIAL_OLD_SPACE_MB: oldSpaceMb }),
        ...(semiSpaceMb === undefined ? {} : { NODE_MAX_SEMI_SPACE_MB: semiSpaceMb }),
      };
      const child = execFile(shell!, [flag!, script!], { cwd: folder, env, timeout: 20_000 });
      let output = '';
      child.stdout!.on('data', (chunk: string) => (output += chunk));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).toBe(0);
      return { shellPid: child.pid, ...(JSON.parse(output) as { pid: number; execArgv: string[]; script: string }) };
    };
    try {
      const started = await start(imageEnvironment.NODE_INITIAL_OLD_SPACE_MB, imageEnvironment.NODE_MAX_SEMI_SPACE_MB);
      // `exec`: the shell became Node, so SIGTERM from the runtime reaches the service, not a shell.
      expect(started.pid).toBe(started.shellPid);
      const external = '--external-memory-accounted-in-global-limit';
      expect(started.execArgv).toEqual([
        `--initial-old-space-size=${imageEnvironment.NODE_INITIAL_OLD_SPACE_MB}`,
        `--max-semi-space-size=${imageEnvironment.NODE_MAX_SEMI_SPACE_MB}`,
        external,
      ]);
      expect(started.script).toBe(path.join(fs.realpathSync(folder), 'dist', 'main.js'));
      // A deployment that sets 0, or unsets them, gets V8's own sizes, and Node still starts.
      const v8Sizes = ['--initial-old-space-size=0', '--max-semi-space-size=0', external];
      expect((await start('0')).execArgv).toEqual(v8Sizes);
      expect((await start(undefined)).execArgv).toEqual(v8Sizes);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('has a stage per service that exposes its port and health-checks it like compose does', () => {
    for (const [name, convention] of Object.entries(services)) {
      expect(stage(`service-${name}`).base, name).toBe('runtime-base');
      expect(
        commands(`service-${name}`, 'EXPOSE').flatMap((command) => command.ports),
        name,
      ).toContain(String(convention.port));
      expect(commands(`service-${name}`, 'ENV')[0]!.environment![convention.portVariable], name).toBe(String(convention.port));
      const target =
        convention.probe.kind === 'grpc'
          ? `grpc://127.0.0.1:${convention.port}`
          : `http://127.0.0.1:${convention.port}${convention.probe.readiness}`;
      expect(commands(`service-${name}`, 'HEALTHCHECK')[0]!.test, name).toEqual([
        'CMD',
        'node',
        '/app/deploy/docker/healthcheck.mjs',
        target,
      ]);
    }
  });

  it('sends only what the image needs to the builder (Dockerfile.dockerignore)', () => {
    const patterns = fs
      .readFileSync(path.join(repositoryRoot, 'deploy/docker/Dockerfile.dockerignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    for (const needed of [
      'package.json',
      'package-lock.json',
      'tsconfig.json',
      'proto/grpc/health/v1/health.proto',
      'services/shared/package.json',
      'services/gateway/src/main.ts',
      'services/devstack/scripts/seed-demo.ts',
      'deploy/docker/healthcheck.mjs',
    ]) {
      expect(dockerIgnored(patterns, needed), needed).toBe(false);
    }
    for (const excluded of [
      'node_modules/tsx/package.json',
      'services/gateway/node_modules/x/index.js',
      'services/wallet/test/wallet.test.ts',
      '.cache/tools/kustomize',
      '.data/dev.json',
      'test/deploy/deploy.test.ts',
      'deploy/k8s/overlays/dev/secrets.env',
      '.env',
      'services/gateway/.env.local',
      'README.md',
      '.git/HEAD',
    ]) {
      expect(dockerIgnored(patterns, excluded), excluded).toBe(true);
    }
    // Every COPY from the build context names something that exists and reaches the builder: a file itself,
    // a folder with all of its sources, manifests and .proto files.
    const filesUnder = (folder: string): string[] =>
      fs.readdirSync(path.join(repositoryRoot, folder), { withFileTypes: true }).flatMap((entry) => {
        const relative = `${folder}/${entry.name}`;
        if (entry.name === 'node_modules') return [];
        return entry.isDirectory() ? filesUnder(relative) : [relative];
      });
    const contextCopies = dockerfile.stages
      .flatMap((candidate) => candidate.commands)
      .filter((command) => command.instruction === 'COPY' && !command.from);
    expect(contextCopies.length).toBeGreaterThan(0);
    for (const source of contextCopies.flatMap((command) => command.sources ?? [])) {
      if (source.includes('*')) continue;
      const full = path.join(repositoryRoot, source);
      expect(fs.existsSync(full), source).toBe(true);
      if (!fs.statSync(full).isDirectory()) {
        expect(dockerIgnored(patterns, source), source).toBe(false);
        continue;
      }
      const shipped = filesUnder(source).filter(
        (file) => /\/src\/|\.proto$|\/package\.json$/.test(file) && !/^services\/[^/]+\/test\//.test(file),
      );
      expect(shipped.length, source).toBeGreaterThan(0);
      for (const file of shipped) expect(dockerIgnored(patterns, file), file).toBe(false);
    }
  });
});

describe('the container health check (deploy/docker/healthcheck.mjs)', () => {
  const script = path.join(repositoryRoot, 'deploy/docker/healthcheck.mjs');

  async function check(target: string): Promise<{ exitCode: number; output: string }> {
    try {
      const { stdout, stderr } = await run(process.execPath, [script, target], {
        timeout: 20_000,
        env: { ...process.env, HEALTHCHECK_TIMEOUT_MS: '2000' },
      });
      return { exitCode: 0, output: stdout + stderr };
    } catch (error) {
      const failure = error as { code?: number; stdout?: string; stderr?: string };
      return { exitCode: failure.code ?? -1, output: (failure.stdout ?? '') + (failure.stderr ?? '') };
    }
  }

  it('reports a gRPC server healthy only while grpc.health.v1 says SERVING', async () => {
    const server = new grpc.Server();
    const health = new HealthImplementation({ '': 'SERVING', 'mtx.wallet.v1.Wallet': 'SERVING' });
    health.addToServer(server);
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
    );
    try {
      expect(await check(`grpc://127.0.0.1:${port}`)).toMatchObject({ exitCode: 0 });
      expect(await check(`grpc://127.0.0.1:${port}/mtx.wallet.v1.Wallet`)).toMatchObject({ exitCode: 0 });
      health.setStatus('', 'NOT_SERVING');
      const draining = await check(`grpc://127.0.0.1:${port}`);
      expect(draining.exitCode).toBe(1);
      expect(draining.output).toContain('NOT_SERVING');
      expect((await check(`grpc://127.0.0.1:${port}/no.such.Service`)).exitCode).toBe(1);
    } finally {
      server.forceShutdown();
    }
    expect((await check(`grpc://127.0.0.1:${port}`)).exitCode).toBe(1);
  });

  it('reports an HTTP endpoint healthy on 2xx only', async () => {
    let status = 200;
    const server = http.createServer((request, response) => {
      response.statusCode = request.url === '/readyz' ? status : 404;
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      expect(await check(`http://127.0.0.1:${port}/readyz`)).toMatchObject({ exitCode: 0 });
      status = 503;
      expect(await check(`http://127.0.0.1:${port}/readyz`)).toMatchObject({ exitCode: 1 });
      expect((await check(`http://127.0.0.1:${port}/other`)).exitCode).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect((await check(`http://127.0.0.1:${port}/readyz`)).exitCode).toBe(1);
    expect((await check('ftp://example')).exitCode).toBe(2);
  });
});

// ---------------------------------------------------------------------------------------------------------------

interface TiltCall {
  function: string;
  args: unknown[];
  kwargs: Record<string, unknown>;
}
interface TiltReport {
  calls: TiltCall[];
  printed: string[];
}

describe('Tiltfile', () => {
  const devPath = 'deploy/k8s/overlays/dev';

  /** Runs the Tiltfile from a scratch folder, so whether secrets.env exists is up to the test, not the checkout. */
  async function inspect(options: { withSecrets: boolean; tiltfile?: string }): Promise<TiltReport> {
    const folder = fs.mkdtempSync(path.join(workDirectory, 'tilt-'));
    fs.writeFileSync(path.join(folder, 'Tiltfile'), options.tiltfile ?? fs.readFileSync(path.join(repositoryRoot, 'Tiltfile'), 'utf8'));
    if (options.withSecrets) {
      fs.mkdirSync(path.join(folder, devPath, 'terminal-tls'), { recursive: true });
      fs.writeFileSync(path.join(folder, devPath, 'secrets.env'), 'POSTBACK_SECRET=x\n');
      fs.writeFileSync(path.join(folder, devPath, 'terminal-tls', 'tls.crt'), 'certificate\n');
    }
    const renderedDev = path.join(folder, 'dev.json');
    fs.writeFileSync(renderedDev, JSON.stringify(rendered.dev.objects));
    const { stdout } = await run(
      tools.tiltfileInspector,
      ['-tiltfile', path.join(folder, 'Tiltfile'), '-kustomize', `${devPath}=${renderedDev}`],
      { maxBuffer: 32 * 1024 * 1024 },
    );
    return JSON.parse(stdout) as TiltReport;
  }

  const calls = (report: TiltReport, name: string) => report.calls.filter((call) => call.function === name);

  it('builds every service image from the Dockerfile with SERVICE, live-updating services/ and proto/', async () => {
    const report = await inspect({ withSecrets: true });
    const builds = calls(report, 'docker_build');
    expect(builds.map((build) => build.args[0]).sort()).toEqual(serviceNames.map((name) => `mtx/${name}`).sort());
    const dockerfileStages = (await inspectDockerfile([], [])).stages.map((candidate) => candidate.name);
    for (const build of builds) {
      const name = (build.args[0] as string).slice('mtx/'.length);
      expect(build.kwargs, name).toMatchObject({ context: '.', dockerfile: 'deploy/docker/Dockerfile', build_args: { SERVICE: name } });
      expect(dockerfileStages, name).toContain(build.kwargs.target);
      const steps = build.kwargs.live_update as TiltCall[];
      const syncs = steps.filter((step) => step.function === 'sync').map((step) => step.args);
      expect(syncs, name).toEqual(
        expect.arrayContaining([
          ['services', '/app/services'],
          ['proto', '/app/proto'],
        ]),
      );
      const fallBack = steps.find((step) => step.function === 'fall_back_on')!;
      expect(fallBack.args[0], name).toEqual(expect.arrayContaining(['package.json', 'package-lock.json']));
      // Live-update steps must come in Tilt's order: fall_back_on first, then syncs, then runs.
      expect(steps[0]!.function, name).toBe('fall_back_on');
    }
  });

  it('deploys the dev overlay, relaxing only what live_update needs', async () => {
    const report = await inspect({ withSecrets: true });
    expect(calls(report, 'kustomize').map((call) => call.args[0])).toEqual([devPath]);
    const deployed = calls(report, 'k8s_yaml');
    expect(deployed).toHaveLength(1);
    const objects = (deployed[0]!.args[0] as { objects: KubernetesObject[] }).objects;
    expect(objects).toHaveLength(rendered.dev.objects.length);
    // Each image Tilt builds is referenced by the manifests, so Tilt substitutes it.
    const images = objects
      .filter((object) => workloadKinds.includes(object.kind))
      .flatMap((object) => podSpec(object).containers.map((container) => container.image.split(':')[0]));
    for (const name of serviceNames) expect(images, name).toContain(`mtx/${name}`);
    // Apart from readOnlyRootFilesystem on the containers Tilt syncs into, the objects are the overlay's own.
    const restored = structuredClone(objects);
    for (const object of restored.filter((candidate) => workloadKinds.includes(candidate.kind))) {
      for (const container of podSpec(object).containers) {
        if (container.image.startsWith('mtx/')) {
          expect(container.securityContext!.readOnlyRootFilesystem, `${object.metadata.name}`).toBe(false);
          container.securityContext!.readOnlyRootFilesystem = true;
        }
      }
    }
    expect(restored).toEqual(rendered.dev.objects);
  });

  it('forwards the gateway (8080) and Jaeger (16686), and groups resources as product, simulators and infra', async () => {
    const report = await inspect({ withSecrets: true });
    const resources = new Map(calls(report, 'k8s_resource').map((call) => [call.args[0] as string, call.kwargs]));
    expect(resources.get('gateway')!.port_forwards).toContain('8080:8080');
    expect(resources.get('jaeger')!.port_forwards).toContain('16686:16686');
    for (const name of [...simulatorNames, 'seed-demo']) expect(resources.get(name)?.labels, name).toEqual(['simulators']);
    for (const name of productNames) expect(resources.get(name)?.labels, name).toEqual(['product']);
    for (const name of ['mongo', 'mongo-init-replica-set', 'nats', 'jaeger']) expect(resources.get(name)?.labels, name).toEqual(['infra']);
    // Tilt refuses a resource or dependency that names no workload.
    const workloads = new Set(
      rendered.dev.objects.filter((object) => workloadKinds.includes(object.kind)).map((object) => object.metadata.name),
    );
    expect([...resources.keys()].sort()).toEqual([...workloads].sort());
    for (const [name, kwargs] of resources)
      for (const dependency of (kwargs.resource_deps as string[] | undefined) ?? [])
        expect(workloads.has(dependency), `${name} → ${dependency}`).toBe(true);
  });

  it('creates the dev secrets and terminal TLS files on a fresh clone, and leaves existing ones alone', async () => {
    const fresh = await inspect({ withSecrets: false });
    expect(calls(fresh, 'local').map((call) => call.args[0])).toEqual([
      `cp ${devPath}/secrets.env.example ${devPath}/secrets.env`,
      `sh deploy/tls/make-terminal-tls.sh ${devPath}/terminal-tls ${devTerminalNames.join(' ')}`,
    ]);
    const configured = await inspect({ withSecrets: true });
    expect(calls(configured, 'local')).toEqual([]);
  });

  it('is rejected when it calls something that is not a Tilt built-in (names are really resolved)', async () => {
    const misspelt = fs.readFileSync(path.join(repositoryRoot, 'Tiltfile'), 'utf8').replace('k8s_yaml(', 'k8s_yml(');
    await expect(inspect({ withSecrets: true, tiltfile: misspelt })).rejects.toMatchObject({
      stderr: expect.stringContaining('undefined: k8s_yml'),
    });
  });
});

describe('package-lock.json, as `npm ci` reads it', () => {
  it('is complete and in step with every package.json, so a fresh clone (and the image build) installs with npm ci', async () => {
    // A copy holding only the manifests: `npm ci --dry-run` checks the lockfile against them without installing.
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'mtx-npm-ci-'));
    try {
      for (const file of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(repositoryRoot, file), path.join(copy, file));
      for (const folder of fs.readdirSync(path.join(repositoryRoot, 'services'))) {
        const manifest = path.join(repositoryRoot, 'services', folder, 'package.json');
        if (!fs.existsSync(manifest)) continue;
        fs.mkdirSync(path.join(copy, 'services', folder), { recursive: true });
        fs.copyFileSync(manifest, path.join(copy, 'services', folder, 'package.json'));
      }
      const result = await run('npm', ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'], {
        cwd: copy,
        timeout: 120_000,
      }).then(
        ({ stdout }) => ({ ok: true, output: stdout }),
        (error: { stderr?: string; message: string }) => ({ ok: false, output: error.stderr ?? error.message }),
      );
      expect(result.ok, result.output.slice(-2_000)).toBe(true);
      // Every platform's build of the native optional packages is locked, not only this machine's.
      const lock = JSON.parse(fs.readFileSync(path.join(repositoryRoot, 'package-lock.json'), 'utf8')) as {
        packages: Record<string, unknown>;
      };
      expect(Object.keys(lock.packages).filter((name) => name.startsWith('node_modules/@rollup/rollup-')).length).toBeGreaterThan(5);
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });
});
