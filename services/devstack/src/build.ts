import fs from 'node:fs';
import path from 'node:path';
import { build, type Metafile, type Plugin } from 'esbuild';
import { repositoryRoot } from '@mtx/shared/infra/paths';
import { consoleStale, ensureConsoleBuilt } from './console-build';

/**
 * Services run compiled: one esbuild bundle per service, services/<name>/dist/main.js, holding the service's and
 * the workspace packages' code (the TypeScript transpiled once, at build time, instead of by tsx in every process
 * at every start). npm packages stay outside the bundle and are required from node_modules at run time, so
 * native and optional modules load as usual and the OpenTelemetry instrumentations, which patch modules as they
 * are required, still see grpc-js, fastify, mongodb and the rest. Source maps are written beside the bundle and
 * used only with `node --enable-source-maps` (SOURCE_MAPS=1 in the process runner): building a mapped stack for
 * every error costs CPU on the hot path.
 */

/** What a bundle was built from (esbuild's metafile inputs), to tell when it is stale. */
interface BuildRecord {
  inputs: string[];
}

const bundleName = 'main.js';
const recordName = 'build.json';

export function bundlePath(service: string): string {
  return path.join(repositoryRoot, 'services', service, 'dist', bundleName);
}

/** npm packages stay external; the workspace's own (`@mtx/...`) and relative imports are bundled. */
const externalNpmPackages: Plugin = {
  name: 'external-npm-packages',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@mtx/') ? undefined : { path: args.path, external: true }));
  },
};

/** Whether the bundle is missing or older than any file it was built from. */
export function bundleStale(service: string): boolean {
  const bundle = bundlePath(service);
  const recordFile = path.join(path.dirname(bundle), recordName);
  if (!fs.existsSync(bundle) || !fs.existsSync(recordFile)) return true;
  const builtAtMs = fs.statSync(bundle).mtimeMs;
  let record: BuildRecord;
  try {
    record = JSON.parse(fs.readFileSync(recordFile, 'utf8')) as BuildRecord;
  } catch {
    return true;
  }
  return record.inputs.some((input) => {
    const file = path.join(repositoryRoot, input);
    return !fs.existsSync(file) || fs.statSync(file).mtimeMs > builtAtMs;
  });
}

/** Builds services/<service>/dist/main.js from src/main.ts; the gateway's build includes the console it serves. */
export async function buildService(service: string): Promise<void> {
  if (service === 'gateway') await ensureConsoleBuilt();
  const entry = path.join(repositoryRoot, 'services', service, 'src', 'main.ts');
  if (!fs.existsSync(entry)) throw new Error(`service ${service} has no src/main.ts`);
  const outfile = bundlePath(service);
  const result = await build({
    entryPoints: [entry],
    outfile,
    // Written below, each file under a temporary name and then renamed: another process starting the service
    // meanwhile (parallel test workers build on demand too) reads the old bundle or the new, never half of one.
    write: false,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: 'external',
    metafile: true,
    logLevel: 'silent',
    absWorkingDir: repositoryRoot,
    plugins: [externalNpmPackages],
  });
  const metafile = result.metafile as Metafile;
  const record: BuildRecord = { inputs: Object.keys(metafile.inputs).filter((input) => !input.startsWith('node_modules/')) };
  fs.mkdirSync(path.dirname(outfile), { recursive: true });
  const files = [
    ...(result.outputFiles ?? []).map((file) => ({ path: file.path, contents: file.contents as Uint8Array | string })),
    { path: path.join(path.dirname(outfile), recordName), contents: `${JSON.stringify(record)}\n` },
  ];
  // The bundle last: its modification time says when the build finished, which staleness compares with.
  files.sort((left, right) => Number(left.path === outfile) - Number(right.path === outfile));
  for (const file of files) {
    const temporary = `${file.path}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, file.contents);
    fs.renameSync(temporary, file.path);
  }
}

const building = new Map<string, Promise<void>>();

/** Builds the service's bundle when it is stale; concurrent callers share one build. */
export async function ensureBuilt(service: string): Promise<void> {
  if (service === 'gateway' && consoleStale()) await ensureConsoleBuilt();
  if (!bundleStale(service)) return;
  let pending = building.get(service);
  if (!pending) {
    pending = buildService(service).finally(() => building.delete(service));
    building.set(service, pending);
  }
  return pending;
}
