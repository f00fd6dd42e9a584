import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { testDatabasePrefix } from '@mtx/shared/testing';
import { heapArguments, initialOldSpaceDefaultMb, initialOldSpaceVariable, semiSpaceDefaultMb, semiSpaceVariable } from '../src/heap';
import { startServiceProcess } from '../src/services';

// Objects that outlive two scavenges reach the old generation and die there: a few hundred megabytes of them,
// the shape of a service's caches and in-flight work under sustained load.
const promotesGarbage = `
const ring = new Array(600);
for (let round = 0; round < 4000; round += 1) {
  const chunk = [];
  for (let index = 0; index < 1000; index += 1) chunk.push({ index, text: 'entry ' + round + ':' + index });
  ring[round % ring.length] = chunk;
}
`;

// Buffers that outlive two scavenges and die old, as sockets' reads and frames do under load: 768 MB of them beside
// a heap of small objects, while nothing the heap holds grows.
const promotesBuffers = `
const ring = new Array(256);
for (let round = 0; round < 3072; round += 1) {
  ring[round % ring.length] = Buffer.alloc(256 * 1024);
  const passing = [];
  for (let index = 0; index < 4000; index += 1) passing.push({ index });
}
`;

/** Runs `workload` in a child Node with `nodeArguments` and answers how many major collections it ran. */
function majorCollections(nodeArguments: string[], workload = promotesGarbage): number {
  const script = `
const { PerformanceObserver, constants } = require('node:perf_hooks');
let majors = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) if (entry.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors += 1;
}).observe({ entryTypes: ['gc'] });
${workload}
setTimeout(() => process.stdout.write(String(majors)), 50);
`;
  return Number(childOutput(nodeArguments, script));
}

/** What a child Node started with `nodeArguments` prints running `script`; it must exit cleanly. */
function childOutput(nodeArguments: string[], script: string): string {
  const result = spawnSync(process.execPath, [...nodeArguments, '-e', script], { encoding: 'utf8', timeout: 30_000 });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout;
}

function commandLine(pid: number): string[] {
  return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
}

describe('the heap arguments every service starts with', () => {
  it('holds major collections back until the old generation reaches the limit, within what the heap may use', () => {
    const withoutLimit = majorCollections([]);
    expect(withoutLimit).toBeGreaterThan(0);
    expect(majorCollections(heapArguments({}))).toBe(0);
    // V8 caps the first limit at half the heap's maximum, which Node derives from a container's memory limit.
    expect(majorCollections([...heapArguments({}), '--max-old-space-size=256'])).toBeGreaterThan(0);
  });

  it('counts buffers that die old against the same limit, not against a fixed 64 MB of their own', () => {
    const limitOnly = heapArguments({ [semiSpaceVariable]: '0' }).filter((argument) => argument.startsWith('--initial-old-space-size='));
    expect(majorCollections(limitOnly, promotesBuffers)).toBeGreaterThanOrEqual(6);
    expect(majorCollections(heapArguments({}), promotesBuffers)).toBe(0);
  });

  it('keeps each scavenge small: the young generation stops at the set size', () => {
    const youngCapacityMb = (nodeArguments: string[]) => {
      const script = `const kept = []; for (let i = 0; i < 3e6; i++) kept.push({ i });
        process.stdout.write(String(require('v8').getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size / 1048576))`;
      return Number(childOutput(nodeArguments, script));
    };
    // The young generation's space holds both of its halves.
    expect(youngCapacityMb(heapArguments({}))).toBe(2 * semiSpaceDefaultMb);
    expect(youngCapacityMb(heapArguments({ [semiSpaceVariable]: '8' }))).toBe(16);
  });

  it('reads the limits from the environment, leaves V8 alone at 0, and refuses anything else', () => {
    const external = '--external-memory-accounted-in-global-limit';
    const semiSpace = `--max-semi-space-size=${semiSpaceDefaultMb}`;
    expect(heapArguments({})).toEqual([`--initial-old-space-size=${initialOldSpaceDefaultMb}`, external, semiSpace]);
    expect(heapArguments({ [initialOldSpaceVariable]: '300' })).toEqual(['--initial-old-space-size=300', external, semiSpace]);
    expect(heapArguments({ [initialOldSpaceVariable]: '0' })).toEqual([external, semiSpace]);
    expect(heapArguments({ [semiSpaceVariable]: '8' })).toEqual([
      `--initial-old-space-size=${initialOldSpaceDefaultMb}`,
      external,
      '--max-semi-space-size=8',
    ]);
    expect(heapArguments({ [initialOldSpaceVariable]: '0', [semiSpaceVariable]: '0' })).toEqual([external]);
    for (const variable of [initialOldSpaceVariable, semiSpaceVariable])
      for (const bad of ['-1', '1.5', 'lots', '1e3x'])
        expect(() => heapArguments({ [variable]: bad }), `${variable}=${bad}`).toThrow(variable);
  });

  it('passes the limits to a started service, and starts nothing with a bad one', async () => {
    const dataDirectory = fs.mkdtempSync(path.join(os.tmpdir(), 'mtx-heap-'));
    const env = {
      ...process.env,
      MONGODB_URL: inject('mongodbUrl'),
      NATS_URL: inject('natsUrl'),
      MONGODB_DATABASE_PREFIX: testDatabasePrefix('heap'),
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDirectory,
      [initialOldSpaceVariable]: '300',
      [semiSpaceVariable]: '8',
    };
    const service = await startServiceProcess({ name: 'crypto-sandbox', env });
    try {
      expect(commandLine(service.pid!)).toEqual(expect.arrayContaining(heapArguments(env)));
      await service.restart();
      expect(commandLine(service.pid!)).toEqual(expect.arrayContaining(['--initial-old-space-size=300', '--max-semi-space-size=8']));
    } finally {
      await service.stop();
    }
    const spawned: number[] = [];
    await expect(
      startServiceProcess({ name: 'crypto-sandbox', env: { ...env, [initialOldSpaceVariable]: 'lots' }, onExit: () => spawned.push(1) }),
    ).rejects.toThrow(initialOldSpaceVariable);
    expect(spawned).toEqual([]);
    fs.rmSync(dataDirectory, { recursive: true, force: true });
  });
});
