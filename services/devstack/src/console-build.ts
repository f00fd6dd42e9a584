import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { repositoryRoot } from '@mtx/shared/infra/paths';

/**
 * The customer console (services/console) is a browser app the gateway serves at /console. It is bundled here by
 * the same esbuild the services are built with, whenever the gateway is (npm start, npm test, npm run build), so
 * a clone needs no extra step. Output in services/console/dist: index.html, and assets/ whose names carry their
 * content hash (served immutable), each with a gzip twin the gateway sends when the browser accepts it.
 */
export const consoleDirectory = path.join(repositoryRoot, 'services', 'console');
export const consoleDistDirectory = path.join(consoleDirectory, 'dist');
const recordName = 'build.json';

/** The most the browser may download, gzipped, for the whole app (every script and stylesheet). */
export const consoleGzipBytesMax = 250 * 1024;

interface ConsoleBuildRecord {
  inputs: string[];
  assets: Array<{ file: string; bytes: number; gzipBytes: number }>;
  gzipBytesTotal: number;
}

/** Whether dist/ is missing or older than any file it was built from (the package's sources and its npm inputs). */
export function consoleStale(): boolean {
  const recordFile = path.join(consoleDistDirectory, recordName);
  const indexFile = path.join(consoleDistDirectory, 'index.html');
  if (!fs.existsSync(recordFile) || !fs.existsSync(indexFile)) return true;
  const builtAtMs = fs.statSync(indexFile).mtimeMs;
  let record: ConsoleBuildRecord;
  try {
    record = JSON.parse(fs.readFileSync(recordFile, 'utf8')) as ConsoleBuildRecord;
  } catch {
    return true;
  }
  const sources = [...record.inputs, 'services/console/src/index.html'];
  return sources.some((input) => {
    const file = path.join(repositoryRoot, input);
    return !fs.existsSync(file) || fs.statSync(file).mtimeMs > builtAtMs;
  });
}

function writeAtomically(file: string, contents: Uint8Array | string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, contents);
  fs.renameSync(temporary, file);
}

/** Bundles the console; throws when the gzipped total is over consoleGzipBytesMax, so a heavy dependency is noticed. */
export async function buildConsole(): Promise<ConsoleBuildRecord> {
  const result = await build({
    entryPoints: [path.join(consoleDirectory, 'src', 'index.tsx')],
    outdir: path.join(consoleDistDirectory, 'assets'),
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    write: false,
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    define: { 'process.env.NODE_ENV': '"production"' },
    legalComments: 'none',
    metafile: true,
    logLevel: 'silent',
    absWorkingDir: repositoryRoot,
  });
  const metafile = result.metafile as Metafile;
  const outputs = result.outputFiles ?? [];
  const script = outputs.find((file) => file.path.endsWith('.js'));
  const stylesheet = outputs.find((file) => file.path.endsWith('.css'));
  if (!script || !stylesheet) throw new Error('the console build produced no script or no stylesheet');
  const assetsDirectory = path.join(consoleDistDirectory, 'assets');
  fs.mkdirSync(assetsDirectory, { recursive: true });
  const assets: ConsoleBuildRecord['assets'] = [];
  for (const output of outputs) {
    const gzip = zlib.gzipSync(output.contents, { level: 9 });
    // Content-hashed names: a parallel build writes the same bytes under the same name.
    writeAtomically(output.path, output.contents);
    writeAtomically(`${output.path}.gz`, gzip);
    assets.push({ file: path.relative(consoleDistDirectory, output.path), bytes: output.contents.length, gzipBytes: gzip.length });
  }
  const gzipBytesTotal = assets.reduce((total, asset) => total + asset.gzipBytes, 0);
  if (gzipBytesTotal > consoleGzipBytesMax)
    throw new Error(`the console bundle is ${gzipBytesTotal} bytes gzipped, over its ${consoleGzipBytesMax}-byte budget`);
  const current = new Set(outputs.flatMap((output) => [path.basename(output.path), `${path.basename(output.path)}.gz`]));
  for (const name of fs.readdirSync(assetsDirectory))
    if (!current.has(name) && !name.endsWith('.tmp')) fs.rmSync(path.join(assetsDirectory, name), { force: true });
  const template = fs.readFileSync(path.join(consoleDirectory, 'src', 'index.html'), 'utf8');
  const html = template
    .replace('%SCRIPT%', `/console/assets/${path.basename(script.path)}`)
    .replace('%STYLESHEET%', `/console/assets/${path.basename(stylesheet.path)}`);
  const record: ConsoleBuildRecord = {
    inputs: Object.keys(metafile.inputs).filter((input) => !input.startsWith('node_modules/')),
    assets,
    gzipBytesTotal,
  };
  writeAtomically(path.join(consoleDistDirectory, recordName), `${JSON.stringify(record, null, 2)}\n`);
  // Last: its modification time says when the build finished, which staleness compares with.
  writeAtomically(path.join(consoleDistDirectory, 'index.html'), html);
  return record;
}

let pending: Promise<unknown> | undefined;

/** Builds the console when it is stale; concurrent callers share one build. */
export function ensureConsoleBuilt(): Promise<unknown> {
  if (!consoleStale()) return Promise.resolve();
  pending ??= buildConsole().finally(() => {
    pending = undefined;
  });
  return pending;
}
