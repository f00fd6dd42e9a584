import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { cacheDirectory } from '@mtx/shared/infra/paths';
import { makeWritable, withDirectoryLock } from './tool-cache';

const run = promisify(execFile);

/**
 * Pinned versions of the local infrastructure. FerretDB 1.24.0 is the last 1.x release (SQLite backend).
 * nats-server 2.14.10 is the newest patch of the previous minor line (2.15 is current): 2.10.29, pinned before,
 * now and then left a restarted cluster node's stream replica behind for minutes (its /healthz answering
 * `group node unhealthy` until the node was restarted again), and the 2.10 line no longer gets fixes. 2.14 needs
 * Go 1.26. promtool (Prometheus 3.16, module version v0.316.0) checks and unit-tests the alert rules in
 * deploy/prometheus (test/observability): the tests run it, so `npm test` provisions it like the servers.
 */
export const tools = {
  ferretdb: {
    module: 'github.com/FerretDB/FerretDB',
    version: 'v1.24.0',
    packagePath: './cmd/ferretdb',
    binary: 'ferretdb',
    build: 'idindex2-untracked-fieldindex-deletebyid',
    tags: '',
  },
  'nats-server': {
    module: 'github.com/nats-io/nats-server/v2',
    version: 'v2.14.10',
    packagePath: '.',
    binary: 'nats-server',
    build: '',
    tags: '',
  },
  // Without the service-discovery plugins (Prometheus's `remove_all_sd` tag): the rules and a static scrape
  // configuration need none, and leaving out their cloud SDKs (Kubernetes, AWS, Azure, …) leaves a fraction of the
  // packages to compile.
  promtool: {
    module: 'github.com/prometheus/prometheus',
    version: 'v0.316.0',
    packagePath: './cmd/promtool',
    binary: 'promtool',
    build: 'nosd',
    tags: 'remove_all_sd',
  },
} as const;

/** The source patch that returns early from `resource.<name>` unless FerretDB is a debug build (see below). */
function untrackedInRelease(name: 'Track' | 'Untrack'): { file: string; find: string; replace: string } {
  const signature = `func ${name}(obj any, token *Token) {`;
  return {
    file: 'internal/util/resource/resource.go',
    find: [signature, '\tcheckArgs(obj, token)'].join('\n'),
    replace: [signature, '\tif !debugbuild.Enabled {', '\t\treturn', '\t}', '', '\tcheckArgs(obj, token)'].join('\n'),
  };
}

/** The source patch that tries `indexedEquality` where the `_id` filter case ends, before `next` (see below). */
function pushIndexedEquality(next: string): { file: string; find: string; replace: string } {
  const idCaseEnd = ['\t\t\targs = []any{string(must.NotFail(sjson.MarshalSingleValue(v)))}', '\t\t}', '\t}', ''];
  const call = [
    '\tif column, value, ok := indexedEquality(meta, params.Filter); whereClause == "" && ok {',
    '\t\twhereClause = ` WHERE ` + column + ` = ?`',
    '\t\targs = []any{value}',
    '\t}',
    '',
  ];
  return {
    file: 'internal/backends/sqlite/collection.go',
    find: [...idCaseEnd, next].join('\n'),
    replace: [...idCaseEnd, ...call, next].join('\n'),
  };
}

/**
 * Source fixes applied to a pinned module before it is built; each must match exactly once, so a version bump
 * that moves the code fails the build loudly instead of building an unpatched binary.
 *
 * FerretDB 1.24's SQLite backend filters `_id` with `_ferretdb_sjson->'$._id' = ?`, but creates the `_id_`
 * index on `_ferretdb_sjson->"_id"`. SQLite matches index expressions by their text, so every `_id` lookup,
 * `_id` update and `_id` delete scans the whole table (EXPLAIN QUERY PLAN: `SCAN`): 80 lookups/s at 20,000
 * documents. Writing the filter the way the index is written makes it `SEARCH … USING INDEX c__id_` (2,300
 * lookups/s sequential at the same size), as `_id` lookups are on MongoDB. The fix changes no stored data or index.
 *
 * The PostgreSQL backend (FERRETDB_BACKEND=postgresql) has the same bug in another form (FerretDB/FerretDB#4646,
 * closed with 1.x's end of life): it filters `_id` as `_jsonb->$1 @> $2`, a containment with the key as a
 * parameter, which the btree index on `_jsonb->'_id'` cannot serve, so every lookup is a `Seq Scan` (9.9 ms at
 * 20,000 documents). For a scalar `_id` (string, ObjectId, date) equality is what containment means, so the
 * patched filter is `_jsonb->'_id' = $1`: an `Index Scan` on the `_id` index (1.0 ms, FerretDB's round trip
 * to PostgreSQL included).
 *
 * FerretDB 1.24's SQLite backend pushes no filter but `_id` down to SQL: `{entry_id: "…"}` on the wallet's ledger,
 * though `entry_id` has a unique index, reads and decodes every document of the collection. An equality on one
 * top-level field to a string, where the collection has an index on exactly that field, is now pushed down as
 * `_ferretdb_sjson->"<field>" = ?`, the index's own expression, so SQLite searches the index. FerretDB still
 * applies the whole filter to what SQLite returns, so the pushdown only narrows the rows read. It differs from
 * MongoDB in one case none of our collections has: an indexed field holding an array, whose elements such a
 * filter would also match on MongoDB.
 *
 * FerretDB 1.24 tracks the lifetime of every transaction, row set, cursor and document iterator for its own leak
 * tests (`resource.Track`): a reflection check, a stack capture into a pprof profile and a finalizer per object,
 * in release builds too. Under the wallet benchmark's 1,000 postbacks/s that was 8.9 % of FerretDB's CPU in
 * `runtime.Callers` alone (Go CPU profile of the open loop); skipping it took FerretDB from 0.45 to 0.40-0.42 ms of
 * CPU per postback (two alternated pairs). The tracking is kept for FerretDB's debug builds (`debugbuild.Enabled`),
 * where its leak reports are read, and skipped in ours.
 *
 * FerretDB 1.24 deletes by first querying the filter in a read transaction, decoding every matching document, and
 * then deleting the ids it read in a write transaction of their own, once per statement. A delete whose filter is
 * only an `_id` equality, or an `_id` `$in` (not limited to one), names its ids already: it now deletes them in one
 * statement by the `_id` index, reading nothing, as MongoDB serves it from that index. The count deleted is the
 * same (the rows removed). Execution's markers of batches in flight go this way, a command of a few dozen ids at a
 * time: under the 4-accounts × 5-legs load those deletes were a third of FerretDB's CPU (Go CPU profile).
 */
export const sourcePatches: Partial<Record<ToolName, Array<{ file: string; find: string; replace: string }>>> = {
  // promtool's `check config` names the Kubernetes discovery type only to check its TLS files; that one import
  // brings in the Kubernetes client (about 300 of promtool's 1,100 packages). Built without discovery
  // (remove_all_sd), a configuration with `kubernetes_sd_configs` is refused as unknown anyway.
  promtool: [
    { file: 'cmd/promtool/main.go', find: '\t"github.com/prometheus/prometheus/discovery/kubernetes"\n', replace: '' },
    {
      file: 'cmd/promtool/main.go',
      find: [
        '\t\t\tcase *kubernetes.SDConfig:',
        '\t\t\t\tif err := checkTLSConfig(c.HTTPClientConfig.TLSConfig, checkSyntaxOnly); err != nil {',
        '\t\t\t\t\treturn nil, nil, err',
        '\t\t\t\t}',
        '',
      ].join('\n'),
      replace: '',
    },
  ],
  ferretdb: [
    {
      file: 'internal/backends/sqlite/metadata/metadata.go',
      find: `IDColumn = DefaultColumn + "->'$._id'"`,
      replace: 'IDColumn = DefaultColumn + `->"_id"`',
    },
    {
      file: 'internal/backends/postgresql/query.go',
      find: [
        '\tcase string, types.ObjectID, time.Time:',
        '\t\t// merge with the case below?',
        '\t\t// TODO https://github.com/FerretDB/FerretDB/issues/3626',
        '',
        "\t\t// don't change the default eq query",
        '\t\tfilter = fmt.Sprintf(sql, metadata.DefaultColumn, operator, p.Next(), p.Next())',
      ].join('\n'),
      replace: [
        '\tcase string, types.ObjectID, time.Time:',
        '\t\tif k == "_id" {',
        '\t\t\tfilter = metadata.IDColumn + " = " + p.Next()',
        '\t\t\targs = append(args, string(must.NotFail(sjson.MarshalSingleValue(v))))',
        '\t\t\tbreak',
        '\t\t}',
        '',
        '\t\tfilter = fmt.Sprintf(sql, metadata.DefaultColumn, operator, p.Next(), p.Next())',
      ].join('\n'),
    },
    // In Query, and in Explain, so that `explain` shows the plan Query uses.
    pushIndexedEquality('\tq += whereClause'),
    pushIndexedEquality('\torderByClause := prepareOrderByClause(params.Sort)'),
    {
      file: 'internal/backends/sqlite/collection.go',
      find: '// InsertAll implements backends.Collection interface.',
      replace: [
        '// indexedEquality returns the indexed expression and its argument for a filter that is one equality on a',
        '// top-level field to a string, when the collection has an index on exactly that field.',
        'func indexedEquality(meta *metadata.Collection, filter *types.Document) (string, string, bool) {',
        '\tif filter.Len() != 1 {',
        '\t\treturn "", "", false',
        '\t}',
        '',
        '\tfield := filter.Keys()[0]',
        '\tif field == "_id" || strings.HasPrefix(field, "$") || strings.Contains(field, ".") {',
        '\t\treturn "", "", false',
        '\t}',
        '',
        '\tvalue, isString := must.NotFail(filter.Get(field)).(string)',
        '\tif !isString {',
        '\t\treturn "", "", false',
        '\t}',
        '',
        '\tfor _, index := range meta.Settings.Indexes {',
        '\t\tif len(index.Key) == 1 && index.Key[0].Field == field {',
        '\t\t\tcolumn := fmt.Sprintf("%s->%q", metadata.DefaultColumn, field)',
        '\t\t\treturn column, string(must.NotFail(sjson.MarshalSingleValue(value))), true',
        '\t\t}',
        '\t}',
        '',
        '\treturn "", "", false',
        '}',
        '',
        '// InsertAll implements backends.Collection interface.',
      ].join('\n'),
    },
    untrackedInRelease('Track'),
    untrackedInRelease('Untrack'),
    {
      file: 'internal/handler/msg_delete.go',
      find: [
        'func (h *Handler) execDelete(ctx context.Context, c backends.Collection, p *common.Delete) (int32, error) {',
        '\tvar qp backends.QueryParams',
      ].join('\n'),
      replace: [
        'func (h *Handler) execDelete(ctx context.Context, c backends.Collection, p *common.Delete) (int32, error) {',
        '\tif ids, ok := deletedByID(p); ok {',
        '\t\td, err := c.DeleteAll(ctx, &backends.DeleteAllParams{IDs: ids})',
        '\t\tif err != nil {',
        '\t\t\treturn 0, lazyerrors.Error(err)',
        '\t\t}',
        '',
        '\t\treturn d.Deleted, nil',
        '\t}',
        '',
        '\tvar qp backends.QueryParams',
      ].join('\n'),
    },
    {
      file: 'internal/handler/msg_delete.go',
      find: '// execDelete performs a single delete operation.',
      replace: [
        '// deletedByID returns the ids a delete names when its filter is only an `_id` equality, or an `_id` `$in`',
        '// not limited to one document, on strings or ObjectIDs: those documents need not be read to be deleted.',
        'func deletedByID(p *common.Delete) ([]any, bool) {',
        '\tif p.Filter.Len() != 1 || p.Filter.Keys()[0] != "_id" {',
        '\t\treturn nil, false',
        '\t}',
        '',
        '\tswitch v := must.NotFail(p.Filter.Get("_id")).(type) {',
        '\tcase string, types.ObjectID:',
        '\t\treturn []any{v}, true',
        '\tcase *types.Document:',
        '\t\tif p.Limited || v.Len() != 1 || v.Keys()[0] != "$in" {',
        '\t\t\treturn nil, false',
        '\t\t}',
        '',
        '\t\tvalues, isArray := must.NotFail(v.Get("$in")).(*types.Array)',
        '\t\tif !isArray || values.Len() == 0 {',
        '\t\t\treturn nil, false',
        '\t\t}',
        '',
        '\t\tids := make([]any, 0, values.Len())',
        '\t\tfor i := 0; i < values.Len(); i++ {',
        '\t\t\tswitch value := must.NotFail(values.Get(i)).(type) {',
        '\t\t\tcase string, types.ObjectID:',
        '\t\t\t\tids = append(ids, value)',
        '\t\t\tdefault:',
        '\t\t\t\treturn nil, false',
        '\t\t\t}',
        '\t\t}',
        '',
        '\t\treturn ids, true',
        '\t}',
        '',
        '\treturn nil, false',
        '}',
        '',
        '// execDelete performs a single delete operation.',
      ].join('\n'),
    },
  ],
};

export type ToolName = keyof typeof tools;

export function toolPath(name: ToolName): string {
  const tool = tools[name];
  // A patched build gets its own folder, so a cache holding an unpatched binary is rebuilt, not reused.
  return path.join(cacheDirectory, 'tools', `${name}-${tool.version}${tool.build ? `-${tool.build}` : ''}`, tool.binary);
}

type Progress = (line: string) => void;

const defaultProgress: Progress = (line) => process.stderr.write(`[provision] ${line}\n`);

async function withSpinner<T>(label: string, work: Promise<T>, progress: Progress): Promise<T> {
  const started = Date.now();
  const interactive = process.stderr.isTTY && progress === defaultProgress;
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  let frame = 0;
  const timer = interactive
    ? setInterval(() => {
        process.stderr.write(`\r[provision] ${frames[frame++ % frames.length]} ${label} (${Math.round((Date.now() - started) / 1000)}s)`);
      }, 120)
    : setInterval(() => progress(`… ${label} (${Math.round((Date.now() - started) / 1000)}s)`), 15_000);
  try {
    const result = await work;
    if (interactive) process.stderr.write('\r\x1b[K');
    progress(`✓ ${label} in ${((Date.now() - started) / 1000).toFixed(1)}s`);
    return result;
  } catch (error) {
    if (interactive) process.stderr.write('\r\x1b[K');
    progress(`✗ ${label} failed after ${((Date.now() - started) / 1000).toFixed(1)}s`);
    throw error;
  } finally {
    clearInterval(timer);
  }
}

async function goBuild(name: ToolName, progress: Progress): Promise<void> {
  const tool = tools[name];
  const target = toolPath(name);
  // GOWORK=off: Prometheus's module ships a go.work (for its web UI), under which -mod=mod is refused.
  const environment = { ...process.env, GOFLAGS: '-mod=mod -buildvcs=false', CGO_ENABLED: '0', GOWORK: 'off' };
  // `go install module@version` asks the proxy for the module's version list (to check deprecation), which
  // the proxy refuses for FerretDB; downloading the pinned version and building it from a copy avoids that.
  const { stdout } = await withSpinner(
    `${name} ${tool.version}: download module`,
    run('go', ['mod', 'download', '-json', `${tool.module}@${tool.version}`], { env: environment, maxBuffer: 16 * 1024 * 1024 }),
    progress,
  );
  const moduleDirectory = (JSON.parse(stdout) as { Dir: string }).Dir;
  const sourceDirectory = path.join(cacheDirectory, 'src', `${name}-${tool.version}`);
  fs.rmSync(sourceDirectory, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(sourceDirectory), { recursive: true });
  fs.cpSync(moduleDirectory, sourceDirectory, { recursive: true });
  makeWritable(sourceDirectory);
  for (const patch of sourcePatches[name] ?? []) applySourcePatch(sourceDirectory, patch);
  if (name === 'ferretdb') {
    // FerretDB embeds its version from files its release tooling generates; a module download lacks them.
    const versionDirectory = path.join(sourceDirectory, 'build', 'version');
    fs.writeFileSync(path.join(versionDirectory, 'version.txt'), `${tool.version}\n`);
    fs.writeFileSync(path.join(versionDirectory, 'package.txt'), `mtx-local-${tool.build}\n`);
  }
  const temporary = `${target}.tmp-${process.pid}`;
  fs.mkdirSync(path.dirname(target), { recursive: true });
  await withSpinner(
    `${name} ${tool.version}: go build`,
    run('go', ['build', '-trimpath', ...(tool.tags ? ['-tags', tool.tags] : []), '-o', temporary, tool.packagePath], {
      cwd: sourceDirectory,
      env: environment,
      maxBuffer: 64 * 1024 * 1024,
    }),
    progress,
  );
  fs.renameSync(temporary, target);
  fs.rmSync(sourceDirectory, { recursive: true, force: true });
}

function applySourcePatch(sourceDirectory: string, patch: { file: string; find: string; replace: string }): void {
  const file = path.join(sourceDirectory, patch.file);
  const text = fs.readFileSync(file, 'utf8');
  const occurrences = text.split(patch.find).length - 1;
  if (occurrences !== 1)
    throw new Error(`source patch for ${patch.file} expected its target once, found it ${occurrences} times: ${patch.find}`);
  fs.writeFileSync(file, text.replace(patch.find, patch.replace));
}

/** The tools the local stack runs: `npm start` and the stack starters need only these, not promtool. */
export const serverTools: ToolName[] = ['ferretdb', 'nats-server'];

/**
 * Builds whatever pinned tool of `names` (all by default, as `npm test` and `npm run provision` ask) is missing; a
 * no-op when those binaries are already in the cache.
 */
export async function provisionTools(
  progress: Progress = defaultProgress,
  names: ToolName[] = Object.keys(tools) as ToolName[],
): Promise<Record<ToolName, string>> {
  const missing = names.filter((name) => !fs.existsSync(toolPath(name)));
  if (missing.length > 0) {
    await withDirectoryLock(path.join(cacheDirectory, 'provision.lock'), async () => {
      for (const [index, name] of missing.entries()) {
        if (fs.existsSync(toolPath(name))) continue;
        progress(
          `[${index + 1}/${missing.length}] building ${name} ${tools[name].version} into ${path.relative(process.cwd(), path.dirname(toolPath(name))) || '.'}`,
        );
        try {
          await run('go', ['version']);
        } catch {
          throw new Error(
            'the Go toolchain (`go`) is needed to build the local FerretDB, nats-server and promtool; install Go 1.26 or newer',
          );
        }
        await goBuild(name, progress);
      }
    });
  }
  return { ferretdb: toolPath('ferretdb'), 'nats-server': toolPath('nats-server'), promtool: toolPath('promtool') };
}
