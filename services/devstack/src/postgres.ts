import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { managedProcess, type LocalProcess } from './managed-process';
import { waitForPort } from './ports';

const run = promisify(execFile);

/**
 * A local PostgreSQL server for FerretDB's PostgreSQL backend (FERRETDB_BACKEND=postgresql): the Debian
 * packages' binaries, one cluster per data folder (`<data>/postgres`, created on first start), listening on
 * 127.0.0.1 only, trusting local connections (the FerretDB process is its only client). PostgreSQL refuses to
 * run as root, so under root it runs as the `postgres` account the Debian package creates.
 */

/** The PostgreSQL binaries' folder: `pg_config --bindir`, else the newest /usr/lib/postgresql/<major>/bin. */
export function postgresBinaries(): string | undefined {
  try {
    const folder = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    if (fs.existsSync(path.join(folder, 'postgres')) && fs.existsSync(path.join(folder, 'initdb'))) return folder;
  } catch {
    // No pg_config on the PATH (Debian ships it in libpq-dev); look where the server packages install.
  }
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return undefined;
  const majors = fs
    .readdirSync(root)
    .filter((name) => /^\d+$/.test(name) && fs.existsSync(path.join(root, name, 'bin', 'postgres')))
    .sort((left, right) => Number(right) - Number(left));
  return majors.length > 0 ? path.join(root, majors[0]!, 'bin') : undefined;
}

/**
 * Installs Debian's `postgresql` where it is missing and this process may (root, apt-get present), refreshing the
 * package lists once if the first try fails; anywhere else says what to install.
 */
async function installPostgres(): Promise<string> {
  const missing = 'FERRETDB_BACKEND=postgresql needs PostgreSQL 13 or later (Debian: apt-get install postgresql)';
  const aptGet = ['/usr/bin/apt-get', '/bin/apt-get'].find((candidate) => fs.existsSync(candidate));
  if (!aptGet || typeof process.getuid !== 'function' || process.getuid() !== 0) throw new Error(`${missing}; none was found`);
  const environment = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => run(aptGet, ['install', '-y', '--no-install-recommends', 'postgresql'], { env: environment, timeout: 600_000 });
  try {
    await install();
  } catch {
    await run(aptGet, ['update'], { env: environment, timeout: 300_000 });
    await install();
  }
  const binaries = postgresBinaries();
  if (!binaries) throw new Error(`${missing}; apt-get installed postgresql, but its binaries are not where Debian puts them`);
  return binaries;
}

/** The account PostgreSQL runs as: this process's own, or `postgres` when this process is root. */
function serverAccount(): { uid: number; gid: number } | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  if (!line)
    throw new Error(
      'PostgreSQL will not run as root, and there is no postgres account to run it as (apt-get install postgresql makes one)',
    );
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** Lets the postgres account reach `folder`: search (not read) permission on every ancestor that withholds it. */
function openPathTo(folder: string): void {
  for (let current = path.dirname(folder); ; current = path.dirname(current)) {
    const mode = fs.statSync(current).mode;
    if ((mode & 0o001) === 0) fs.chmodSync(current, (mode & 0o7777) | 0o001);
    if (current === path.dirname(current)) return;
  }
}

/**
 * Stops a server a killed predecessor left running on this cluster (its postmaster.pid names a live postgres on
 * this folder): PostgreSQL would refuse to start beside it, and the data is the same either way.
 */
async function stopLeftoverServer(directory: string): Promise<void> {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(path.join(directory, 'postmaster.pid'), 'utf8').split('\n')[0]);
    if (!Number.isInteger(pid) || pid <= 0 || !fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(directory)) return;
  } catch {
    return; // No lock file, no such process, or no /proc: nothing of ours is running.
  }
  process.kill(pid, 'SIGINT');
  for (let waitedMs = 0; fs.existsSync(`/proc/${pid}`); waitedMs += 100) {
    if (waitedMs === 10_000) process.kill(pid, 'SIGKILL');
    if (waitedMs === 20_000) throw new Error(`a PostgreSQL server (pid ${pid}) left on ${directory} would not stop`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface PostgresOptions {
  /** The cluster's folder; created (initdb) when it holds none. */
  directory: string;
  port: number;
  logFile: string;
}

/** The role and database FerretDB uses; FerretDB keeps each MongoDB database as a schema inside it. */
export const postgresRole = 'ferretdb';
export const postgresDatabase = 'postgres';

/**
 * Starts PostgreSQL on `port` with its cluster in `directory`, creating the cluster first if needed. Commits are
 * written to the kernel before they are acknowledged (`synchronous_commit=on`) without an fsync (`fsync=off`):
 * every committed write survives any process crash, as with SQLite's `synchronous=NORMAL` on the default
 * backend; an OS crash may lose recent commits. Stopped with SIGINT (PostgreSQL's fast shutdown; SIGTERM would
 * wait for FerretDB to disconnect first).
 */
export async function startPostgres(options: PostgresOptions): Promise<LocalProcess & { connectionUrl: string }> {
  const binaries = postgresBinaries() ?? (await installPostgres());
  const account = serverAccount();
  const ownership = account ? { uid: account.uid, gid: account.gid } : {};
  if (!fs.existsSync(path.join(options.directory, 'PG_VERSION'))) {
    fs.rmSync(options.directory, { recursive: true, force: true });
    fs.mkdirSync(options.directory, { recursive: true, mode: 0o700 });
    if (account) {
      fs.chownSync(options.directory, account.uid, account.gid);
      openPathTo(options.directory);
    }
    await run(
      path.join(binaries, 'initdb'),
      ['-D', options.directory, '-U', postgresRole, '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-instructions', '--no-sync'],
      { ...ownership, timeout: 120_000 },
    );
  } else {
    if (account) openPathTo(options.directory);
    await stopLeftoverServer(options.directory);
  }
  const connectionUrl = `postgres://${postgresRole}@127.0.0.1:${options.port}/${postgresDatabase}`;
  const server = managedProcess(
    'postgresql',
    options.port,
    connectionUrl,
    path.join(binaries, 'postgres'),
    [
      '-D',
      options.directory,
      '-p',
      String(options.port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=on',
      '-c',
      'logging_collector=off',
    ],
    options.logFile,
    () => waitForPort(options.port, 30_000),
    {},
    { ...ownership, stopSignal: 'SIGINT' },
  );
  await server.start();
  return Object.assign(server, { connectionUrl });
}
