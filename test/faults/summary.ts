import fs from 'node:fs';
import path from 'node:path';
import { repositoryRoot } from '@mtx/shared/infra/paths';

/** One row of the fault suite's summary: what was done, under what load, and what was lost (must be 0). */
export interface FaultRow {
  fault: string;
  load: string;
  requests: number;
  errorsByKind: Record<string, number>;
  moneyLostEurCents: number;
  ordersLost: number;
  ordersExecutedTwice: number;
  seed?: number;
  notes?: string;
  durationMs?: number;
  /** From the fault's end to the first request served in full again, where the scenario measures it. */
  recoveryMs?: number;
}

const summaryFile = path.join(repositoryRoot, 'test', 'output', 'faults-summary.json');

interface SummaryFile {
  generated_at: string;
  /** The vitest process of the run (the parent of the worker that runs every fault file one after another). */
  run_id: number;
  rows: FaultRow[];
}

/** Rows of this run so far; a file left by an earlier run is not carried over. */
function currentRows(): FaultRow[] {
  if (!fs.existsSync(summaryFile)) return [];
  try {
    const stored = JSON.parse(fs.readFileSync(summaryFile, 'utf8')) as Partial<SummaryFile>;
    return stored.run_id === process.ppid && Array.isArray(stored.rows) ? stored.rows : [];
  } catch {
    return [];
  }
}

/** Appends a row to the run's summary file (test/output/faults-summary.json) and prints the table so far. */
export function recordFault(row: FaultRow): void {
  fs.mkdirSync(path.dirname(summaryFile), { recursive: true });
  const kept = currentRows().filter((existing) => existing.fault !== row.fault);
  kept.push(row);
  const document: SummaryFile = { generated_at: new Date().toISOString(), run_id: process.ppid, rows: kept };
  fs.writeFileSync(summaryFile, `${JSON.stringify(document, null, 2)}\n`);
  process.stdout.write(`${renderTable(kept)}\n`);
}

/** Prints every row of the run so far; each fault file calls it when it ends, so the last one prints the whole table. */
export function printSummary(): void {
  const rows = currentRows();
  if (rows.length > 0)
    process.stdout.write(`\nFault suite summary (${path.relative(repositoryRoot, summaryFile)}):\n${renderTable(rows)}\n`);
}

export function renderTable(rows: FaultRow[]): string {
  const header = [
    'fault',
    'load held',
    'requests',
    'errors by kind',
    'money lost (cents)',
    'orders lost',
    'executed twice',
    'seed',
    'serving again',
    'duration',
  ];
  const body = rows.map((row) => [
    row.fault,
    row.load,
    String(row.requests),
    Object.entries(row.errorsByKind)
      .map(([kind, count]) => `${kind}:${count}`)
      .join(' ') || '-',
    String(row.moneyLostEurCents),
    String(row.ordersLost),
    String(row.ordersExecutedTwice),
    row.seed === undefined ? '-' : String(row.seed),
    row.recoveryMs === undefined ? '-' : `${(row.recoveryMs / 1000).toFixed(1)} s`,
    row.durationMs === undefined ? '-' : `${(row.durationMs / 1000).toFixed(1)} s`,
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...body.map((cells) => cells[column]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

/** Seeded PRNG (mulberry32): every randomized case prints its seed, and the same seed replays it. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

export function seedFromEnvironment(label: string): number {
  const fromEnvironment = process.env.FAULT_SEED ? Number(process.env.FAULT_SEED) : undefined;
  const seed = fromEnvironment ?? Math.floor(Math.random() * 2 ** 31);
  process.stdout.write(`[faults] ${label}: seed ${seed} (replay with FAULT_SEED=${seed})\n`);
  return seed;
}
