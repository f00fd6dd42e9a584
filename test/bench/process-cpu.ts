import fs from 'node:fs';
import os from 'node:os';

/** CPU time (user + system) a process has used so far, in milliseconds; undefined once it is gone or off Linux. */
function cpuMs(pid: number): number | undefined {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // Fields 14 and 15 of /proc/<pid>/stat (utime, stime), counted after the command name's closing parenthesis.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicksPerSecond;
  } catch {
    return undefined;
  }
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
    const used = pid === undefined ? undefined : cpuMs(pid);
    if (used !== undefined) before.set(name, used);
  }
  return () => {
    const spent: Record<string, number> = {};
    for (const [name, pid] of processes) {
      const start = before.get(name);
      const end = pid === undefined ? undefined : cpuMs(pid);
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
