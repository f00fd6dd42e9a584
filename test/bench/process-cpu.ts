import fs from 'node:fs';
import os from 'node:os';

/** The fields of /proc/<pid>/stat after the command name (field 3, the state, first); undefined once it is gone. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** CPU time (user + system) a process has used so far, in milliseconds; undefined once it is gone or off Linux. */
function cpuMs(pid: number): number | undefined {
  const fields = statFields(pid);
  // Fields 14 and 15 of proc(5) (utime, stime), counted here from field 3.
  return fields ? ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicksPerSecond : undefined;
}

/**
 * Servers that fork a process per client connection (PostgreSQL behind FerretDB, FERRETDB_BACKEND=postgresql):
 * their CPU is the whole tree's, the exited children's included.
 */
const forkingServers = new Set(['postgresql']);

/**
 * CPU time of `pid` and every process below it, in milliseconds: each live one's own time plus what its exited
 * children used (cutime, cstime), so a child that exits between two readings still counts, once.
 */
export function processTreeCpuMs(pid: number): number | undefined {
  const own = statFields(pid);
  if (!own) return undefined;
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    // Field 4 of proc(5) (ppid).
    const parent = Number(statFields(Number(entry))?.[1]);
    if (Number.isInteger(parent)) children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  let ticks = 0;
  const queue = [pid];
  while (queue.length > 0) {
    const current = queue.shift()!;
    const fields = current === pid ? own : statFields(current);
    // Fields 14 to 17 of proc(5): utime, stime, cutime, cstime.
    if (fields) ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    queue.push(...(children.get(current) ?? []));
  }
  return (ticks * 1000) / clockTicksPerSecond;
}

/** CPU time of the process named `name` so far, in milliseconds (its whole tree for a forking server). */
export function namedProcessCpuMs(name: string, pid: number): number | undefined {
  return forkingServers.has(name) ? processTreeCpuMs(pid) : cpuMs(pid);
}

// USER_HZ is 100 on every Linux the project runs on; `getconf CLK_TCK` would say otherwise.
const clockTicksPerSecond = 100;

/**
 * Where a measured phase spent its CPU: each named process's CPU milliseconds per unit of work (a credit, a
 * request), so a benchmark says which process to make cheaper, not only how fast the whole was.
 */
export function measureProcessCpu(processes: Map<string, number | undefined>): () => Record<string, number> {
  const before = new Map<string, number>();
  for (const [name, pid] of processes) {
    const used = pid === undefined ? undefined : namedProcessCpuMs(name, pid);
    if (used !== undefined) before.set(name, used);
  }
  return () => {
    const spent: Record<string, number> = {};
    for (const [name, pid] of processes) {
      const start = before.get(name);
      const end = pid === undefined ? undefined : namedProcessCpuMs(name, pid);
      if (start !== undefined && end !== undefined) spent[name] = end - start;
    }
    return spent;
  };
}

/** `{name: ms}` over `units` as "name 0.42" pieces, largest first, plus the machine's share of it. */
export function describeCpuPerUnit(spent: Record<string, number>, units: number, wallSeconds: number): string {
  const total = Object.values(spent).reduce((sum, value) => sum + value, 0);
  const parts = Object.entries(spent)
    .sort((a, b) => b[1] - a[1])
    .map(([name, value]) => `${name} ${(value / Math.max(1, units)).toFixed(2)}`);
  const busyShare = total / (wallSeconds * 1000 * os.cpus().length);
  return `CPU ms per unit: ${parts.join(', ')} (total ${(total / Math.max(1, units)).toFixed(2)}; ${(busyShare * 100).toFixed(0)} % of the machine's cores)`;
}
