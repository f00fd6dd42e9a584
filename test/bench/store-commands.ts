/**
 * Store commands served per unit of work, read from FerretDB's Prometheus counters
 * (`ferretdb_client_requests_total{command=…}`) before and after a phase: what a phase asks of the store,
 * beside what it costs in CPU. Unavailable (null) when the store is not the FerretDB a benchmark started.
 */
export async function readStoreCommands(metricsUrl: string | undefined): Promise<Map<string, number> | null> {
  if (!metricsUrl) return null;
  try {
    const response = await fetch(metricsUrl, { signal: AbortSignal.timeout(2_000) });
    if (!response.ok) return null;
    const counts = new Map<string, number>();
    for (const line of (await response.text()).split('\n')) {
      const match = /^ferretdb_client_requests_total\{command="([^"]+)",opcode="OP_MSG"\} (\d+(?:\.\d+)?(?:e\+\d+)?)$/.exec(line);
      if (match) counts.set(match[1]!, Number(match[2]));
    }
    return counts;
  } catch {
    return null;
  }
}

/** `insert 2.01, find 0.12, …` per unit between two readings, most frequent first; null when either is missing. */
export function describeStoreCommandsPerUnit(
  before: Map<string, number> | null,
  after: Map<string, number> | null,
  units: number,
): string | null {
  if (!before || !after || units <= 0) return null;
  const perUnit = [...after.entries()]
    .map(([command, count]) => [command, (count - (before.get(command) ?? 0)) / units] as const)
    .filter(([, value]) => value >= 0.005)
    .sort((left, right) => right[1] - left[1]);
  const total = perUnit.reduce((sum, [, value]) => sum + value, 0);
  return `store commands per unit: ${perUnit.map(([command, value]) => `${command} ${value.toFixed(2)}`).join(', ')} (total ${total.toFixed(2)})`;
}
