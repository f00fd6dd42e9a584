import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';

/**
 * The backlog of the socket listening on `port`, as the kernel holds it, and the host's cap on any backlog
 * (net.core.somaxconn). Node does not expose the backlog; `ss` reports it as a listening socket's Send-Q.
 */
export async function listenBacklogOf(port: number): Promise<{ backlog: number; hostMax: number }> {
  const hostMax = Number((await readFile('/proc/sys/net/core/somaxconn', 'utf8')).trim());
  const { stdout } = await promisify(execFile)('ss', ['-ltnH', `sport = :${port}`]);
  const columns = stdout.trim().split(/\s+/);
  if (columns.length < 4) throw new Error(`nothing listens on port ${port}`);
  return { backlog: Number(columns[2]), hostMax };
}
