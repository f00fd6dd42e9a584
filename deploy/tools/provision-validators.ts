/**
 * Builds and fetches, into .cache/tools/ (git-ignored), the real tools that check the deployment artifacts
 * without Docker or a cluster, and skips whatever is already there:
 *
 * - kustomize and kubeconform, built from their Go modules at pinned versions;
 * - the Kubernetes JSON schemas for kubeconform, from the PyPI package kubernetes-validate (which ships them
 *   for every Kubernetes minor version from 1.25), so kubeconform never needs GitHub;
 * - compose-inspector (deploy/tools/compose-inspector), which loads docker-compose.yml with compose-go, the
 *   library `docker compose` itself uses (schema, interpolation, merge keys, profiles, consistency), and
 *   prints the resolved project or compose-go's embedded compose-spec.json;
 * - dockerfile-inspector (deploy/tools/dockerfile-inspector), which reads the Dockerfile with BuildKit's own
 *   parser and runs the checks `docker build --check` runs, offline, for each service and target;
 * - tiltfile-inspector (deploy/tools/tiltfile-inspector), which runs the Tiltfile in the real Starlark
 *   interpreter against recording stand-ins for Tilt's built-ins.
 *
 * Only the package registries are used: the Go module proxy for Go modules, PyPI through pip for the wheel.
 *
 *   npx tsx deploy/tools/provision-validators.ts      # prints the paths as JSON
 *
 * The deploy tests call provisionValidators() from their beforeAll, so `npm test` on a fresh clone needs
 * nothing installed by hand besides Go (≥ 1.26, what kustomize v5.8 asks for), Python 3 with pip, and Node.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { cacheDirectory, repositoryRoot } from '../../services/shared/src/infra/paths';
import { makeWritable, withDirectoryLock } from '../../services/devstack/src/tool-cache';

const run = promisify(execFile);

/**
 * Go modules built as they are published. `go install module@version` would ask the proxy for the module's
 * version list, which the proxy refuses for some modules; downloading the pinned version and building a
 * writable copy of it (as services/devstack/src/provision.ts does for FerretDB) does not.
 */
export const goModuleTools = {
  kustomize: { module: 'sigs.k8s.io/kustomize/kustomize/v5', version: 'v5.8.2', packagePath: '.', binary: 'kustomize' },
  kubeconform: { module: 'github.com/yannh/kubeconform', version: 'v0.8.0', packagePath: './cmd/kubeconform', binary: 'kubeconform' },
} as const;

export type GoModuleToolName = keyof typeof goModuleTools;

/** Programs of this repository, built from their own go.mod/go.sum (which pin compose-go, BuildKit and go.starlark.net). */
export const localGoPrograms = {
  'compose-inspector': { directory: 'deploy/tools/compose-inspector', binary: 'compose-inspector' },
  'dockerfile-inspector': { directory: 'deploy/tools/dockerfile-inspector', binary: 'dockerfile-inspector' },
  'tiltfile-inspector': { directory: 'deploy/tools/tiltfile-inspector', binary: 'tiltfile-inspector' },
} as const;

export type LocalGoProgramName = keyof typeof localGoPrograms;

/**
 * kubernetes-validate bundles kubeconform-compatible schema folders (`<kind>-<group>-<version>.json`, strict
 * variants with additionalProperties false). The wheel's hash is pinned: pip checks it before anything is used.
 */
export const kubernetesSchemaSource = {
  package: 'kubernetes-validate',
  version: '1.37.0',
  wheel: 'kubernetes_validate-1.37.0-py3-none-any.whl',
  sha256: '85136d018a27b50ec7fc049d902bfa5193f5976807e6c0f408e3ab6fe078cad9',
  /** The oldest Kubernetes the manifests support (native gRPC probes and matchLabelKeys are on from 1.27) and the newest in the package. */
  kubernetesVersions: ['1.30.0', '1.37.0'],
} as const;

export interface ValidatorPaths {
  kustomize: string;
  kubeconform: string;
  composeInspector: string;
  dockerfileInspector: string;
  tiltfileInspector: string;
  /** Folder holding v<version>-local and v<version>-local-strict schema folders. */
  kubernetesSchemas: string;
  /** kubeconform -schema-location template for those folders. */
  kubernetesSchemaLocation: string;
}

type Progress = (line: string) => void;

const defaultProgress: Progress = (line) => process.stderr.write(`[provision-validators] ${line}\n`);

const toolsDirectory = path.join(cacheDirectory, 'tools');

// Never let `go` download another toolchain (that is not a package the project uses) or prompt for anything.
const goEnvironment = {
  ...process.env,
  CGO_ENABLED: '0',
  GOTOOLCHAIN: 'local',
  GOWORK: 'off',
  GOFLAGS: '-buildvcs=false',
  GOPROXY: process.env.GOPROXY || 'https://proxy.golang.org,direct',
};

export function goModuleToolPath(name: GoModuleToolName): string {
  const tool = goModuleTools[name];
  return path.join(toolsDirectory, `${name}-${tool.version}`, tool.binary);
}

/** Local programs are keyed by a hash of their sources, so an edit rebuilds them and an unchanged tree does not. */
export function localGoProgramPath(name: LocalGoProgramName): string {
  const program = localGoPrograms[name];
  const directory = path.join(repositoryRoot, program.directory);
  const hash = createHash('sha256');
  for (const file of fs.readdirSync(directory).sort()) {
    if (!/\.(go|mod|sum)$/.test(file)) continue;
    hash
      .update(file)
      .update('\0')
      .update(fs.readFileSync(path.join(directory, file)))
      .update('\0');
  }
  return path.join(toolsDirectory, `${name}-${hash.digest('hex').slice(0, 12)}`, program.binary);
}

export function kubernetesSchemasPath(): string {
  return path.join(toolsDirectory, `kubernetes-json-schema-${kubernetesSchemaSource.version}`);
}

function schemaMarker(): string {
  return path.join(kubernetesSchemasPath(), '.complete');
}

export function validatorPaths(): ValidatorPaths {
  const schemas = kubernetesSchemasPath();
  return {
    kustomize: goModuleToolPath('kustomize'),
    kubeconform: goModuleToolPath('kubeconform'),
    composeInspector: localGoProgramPath('compose-inspector'),
    dockerfileInspector: localGoProgramPath('dockerfile-inspector'),
    tiltfileInspector: localGoProgramPath('tiltfile-inspector'),
    kubernetesSchemas: schemas,
    // kubeconform fills in the version ("v1.30.0"), "-strict" under -strict, and e.g. "deployment-apps-v1".
    kubernetesSchemaLocation: path.join(
      schemas,
      '{{ .NormalizedKubernetesVersion }}-local{{ .StrictSuffix }}',
      '{{ .ResourceKind }}{{ .KindSuffix }}.json',
    ),
  };
}

async function timed<T>(label: string, work: () => Promise<T>, progress: Progress): Promise<T> {
  const started = Date.now();
  const heartbeat = setInterval(() => progress(`… ${label} (${Math.round((Date.now() - started) / 1000)}s)`), 20_000);
  try {
    const result = await work();
    progress(`✓ ${label} in ${((Date.now() - started) / 1000).toFixed(1)}s`);
    return result;
  } catch (error) {
    progress(`✗ ${label} failed after ${((Date.now() - started) / 1000).toFixed(1)}s`);
    const output = error as { stderr?: string; stdout?: string };
    if (output.stderr || output.stdout) (error as Error).message += `\n${output.stderr ?? ''}${output.stdout ?? ''}`;
    throw error;
  } finally {
    clearInterval(heartbeat);
  }
}

/** Writes to a temporary name and renames, so a crash never leaves a half-written file that looks complete. */
function publish(temporary: string, target: string): void {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.renameSync(temporary, target);
}

async function buildGoModuleTool(name: GoModuleToolName, progress: Progress): Promise<void> {
  const tool = goModuleTools[name];
  const { stdout } = await timed(
    `${name} ${tool.version}: download module`,
    () => run('go', ['mod', 'download', '-json', `${tool.module}@${tool.version}`], { env: goEnvironment, maxBuffer: 16 * 1024 * 1024 }),
    progress,
  );
  const moduleDirectory = (JSON.parse(stdout) as { Dir: string }).Dir;
  // The module cache is read-only; the build may need to write go.sum entries, so it runs on a copy.
  const sourceDirectory = path.join(cacheDirectory, 'src', `${name}-${tool.version}`);
  fs.rmSync(sourceDirectory, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(sourceDirectory), { recursive: true });
  fs.cpSync(moduleDirectory, sourceDirectory, { recursive: true });
  makeWritable(sourceDirectory);
  const target = goModuleToolPath(name);
  const temporary = `${target}.tmp-${process.pid}`;
  fs.mkdirSync(path.dirname(target), { recursive: true });
  await timed(
    `${name} ${tool.version}: go build`,
    () =>
      run('go', ['build', '-mod=mod', '-trimpath', '-ldflags=-s -w', '-o', temporary, tool.packagePath], {
        cwd: sourceDirectory,
        env: goEnvironment,
        maxBuffer: 64 * 1024 * 1024,
      }),
    progress,
  );
  publish(temporary, target);
  fs.rmSync(sourceDirectory, { recursive: true, force: true });
}

async function buildLocalGoProgram(name: LocalGoProgramName, progress: Progress): Promise<void> {
  const program = localGoPrograms[name];
  const target = localGoProgramPath(name);
  const temporary = `${target}.tmp-${process.pid}`;
  fs.mkdirSync(path.dirname(target), { recursive: true });
  // -mod=readonly: the committed go.sum must already be complete; a build never edits the source tree.
  await timed(
    `${name}: go build`,
    () =>
      run('go', ['build', '-mod=readonly', '-trimpath', '-ldflags=-s -w', '-o', temporary, '.'], {
        cwd: path.join(repositoryRoot, program.directory),
        env: goEnvironment,
        maxBuffer: 64 * 1024 * 1024,
      }),
    progress,
  );
  publish(temporary, target);
  // Older builds of the same program (other source hashes) are dead weight.
  for (const entry of fs.readdirSync(toolsDirectory)) {
    const full = path.join(toolsDirectory, entry);
    if (entry.startsWith(`${name}-`) && full !== path.dirname(target)) fs.rmSync(full, { recursive: true, force: true });
  }
}

/** The Python that has pip: python3 on Linux and macOS, python on some Windows setups. */
async function findPython(): Promise<string> {
  for (const candidate of ['python3', 'python']) {
    try {
      await run(candidate, ['-m', 'pip', '--version']);
      return candidate;
    } catch {
      // try the next name
    }
  }
  throw new Error('Python 3 with pip is needed to fetch the Kubernetes JSON schemas (PyPI package kubernetes-validate)');
}

/**
 * The schemas refer to their shared definitions as "/api/_definitions.json#…" under an https://kubernetes.io
 * $id, which only resolves inside kubernetes-validate's own registry. Dropping the $id and making the
 * reference relative lets kubeconform resolve it next to the schema file, offline.
 */
function rewriteSchemaForLocalFiles(text: string): string {
  const schema = JSON.parse(text.replaceAll('"/api/_definitions.json#', '"_definitions.json#')) as Record<string, unknown>;
  delete schema.$id;
  return JSON.stringify(schema);
}

async function fetchKubernetesSchemas(progress: Progress): Promise<void> {
  const source = kubernetesSchemaSource;
  const python = await findPython();
  const work = path.join(cacheDirectory, 'src', `kubernetes-validate-${source.version}-${process.pid}`);
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(work, { recursive: true });
  try {
    const requirements = path.join(work, 'requirements.txt');
    fs.writeFileSync(requirements, `${source.package}==${source.version} --hash=sha256:${source.sha256}\n`);
    await timed(
      `${source.package} ${source.version}: pip download`,
      () =>
        run(
          python,
          [
            '-m',
            'pip',
            'download',
            '--disable-pip-version-check',
            '--no-deps',
            '--only-binary=:all:',
            '--require-hashes',
            '-r',
            requirements,
            '-d',
            work,
          ],
          {
            env: { ...process.env, PIP_NO_INPUT: '1' },
            maxBuffer: 16 * 1024 * 1024,
          },
        ),
      progress,
    );
    const wheel = path.join(work, source.wheel);
    const extracted = path.join(work, 'extracted');
    const folders = source.kubernetesVersions.flatMap((version) => [`v${version}-local`, `v${version}-local-strict`]);
    // A wheel is a zip; Python's zipfile (already needed for pip) extracts only the folders used.
    const extractScript = [
      'import sys, zipfile',
      'wheel, target, *folders = sys.argv[1:]',
      'prefixes = tuple(f"kubernetes_validate/kubernetes-json-schema/{folder}/" for folder in folders)',
      'with zipfile.ZipFile(wheel) as archive:',
      '    members = [name for name in archive.namelist() if name.startswith(prefixes)]',
      '    archive.extractall(target, members)',
      'print(len(members))',
    ].join('\n');
    await timed(
      `${source.package} ${source.version}: extract ${folders.join(', ')}`,
      () => run(python, ['-c', extractScript, wheel, extracted, ...folders]),
      progress,
    );
    const staging = `${kubernetesSchemasPath()}.tmp-${process.pid}`;
    fs.rmSync(staging, { recursive: true, force: true });
    for (const folder of folders) {
      const from = path.join(extracted, 'kubernetes_validate', 'kubernetes-json-schema', folder);
      const to = path.join(staging, folder);
      fs.mkdirSync(to, { recursive: true });
      const files = fs.readdirSync(from).filter((file) => file.endsWith('.json'));
      if (!files.includes('_definitions.json') || !files.includes('deployment-apps-v1.json')) {
        throw new Error(`${source.wheel} has no usable ${folder} schemas`);
      }
      for (const file of files)
        fs.writeFileSync(path.join(to, file), rewriteSchemaForLocalFiles(fs.readFileSync(path.join(from, file), 'utf8')));
    }
    fs.writeFileSync(path.join(staging, '.complete'), `${source.package}==${source.version}\n`);
    fs.rmSync(kubernetesSchemasPath(), { recursive: true, force: true });
    publish(staging, kubernetesSchemasPath());
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

async function requireGo(): Promise<void> {
  let version: string;
  try {
    version = (await run('go', ['env', 'GOVERSION'], { env: goEnvironment })).stdout.trim();
  } catch {
    throw new Error('the Go toolchain (`go`, 1.26 or newer) is needed to build kustomize, kubeconform and the inspectors in deploy/tools');
  }
  const [major = 0, minor = 0] = version.replace(/^go/, '').split('.').map(Number);
  if (major < 1 || (major === 1 && minor < 26))
    throw new Error(`Go ${version} is too old: kustomize ${goModuleTools.kustomize.version} needs go 1.26 or newer`);
}

function missingParts(): string[] {
  const missing: string[] = [];
  for (const name of Object.keys(goModuleTools) as GoModuleToolName[]) if (!fs.existsSync(goModuleToolPath(name))) missing.push(name);
  for (const name of Object.keys(localGoPrograms) as LocalGoProgramName[]) if (!fs.existsSync(localGoProgramPath(name))) missing.push(name);
  if (!fs.existsSync(schemaMarker())) missing.push('kubernetes-schemas');
  return missing;
}

/** Provides every validator, building or fetching only what is missing; a no-op when all are cached. */
export async function provisionValidators(progress: Progress = defaultProgress): Promise<ValidatorPaths> {
  if (missingParts().length > 0) {
    await withDirectoryLock(path.join(cacheDirectory, 'provision-validators.lock'), async () => {
      const missing = missingParts();
      if (missing.length === 0) return;
      progress(`providing ${missing.join(', ')} into ${path.relative(repositoryRoot, toolsDirectory)}`);
      fs.mkdirSync(toolsDirectory, { recursive: true });
      const needsGo = missing.some((part) => part !== 'kubernetes-schemas');
      if (needsGo) await requireGo();
      // The download waits on the network while the builds use the CPU, so the two run side by side.
      const schemas = missing.includes('kubernetes-schemas') ? fetchKubernetesSchemas(progress) : Promise.resolve();
      const builds = (async () => {
        for (const name of Object.keys(goModuleTools) as GoModuleToolName[])
          if (missing.includes(name)) await buildGoModuleTool(name, progress);
        for (const name of Object.keys(localGoPrograms) as LocalGoProgramName[])
          if (missing.includes(name)) await buildLocalGoProgram(name, progress);
      })();
      const results = await Promise.allSettled([schemas, builds]);
      const failure = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
      if (failure) throw failure.reason;
    });
  }
  return validatorPaths();
}

const invokedDirectly = process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.resolve(__filename);
if (invokedDirectly) {
  const started = Date.now();
  provisionValidators().then(
    (paths) => {
      process.stdout.write(`${JSON.stringify(paths, null, 2)}\n`);
      defaultProgress(`ready in ${((Date.now() - started) / 1000).toFixed(1)}s`);
    },
    (error: unknown) => {
      defaultProgress(`failed: ${(error as Error).message}`);
      process.exit(1);
    },
  );
}
