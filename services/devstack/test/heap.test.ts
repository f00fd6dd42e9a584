import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { testDatabasePrefix } from '@mtx/shared/testing';
import { heapArguments, initialOldSpaceDefaultMb, initialOldSpaceVariable } from '../src/heap';
import { startServiceProcess } from '../src/services';

// Objects that outlive two scavenges reach the old generation and die there: a few hundred megabytes of them,
// the shape of a service's caches and in-flight work under sustained load.
const promotesGarbage = `
const { PerformanceObserver, constants } = require('node:perf_hooks');
let majors = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) if (entry.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors += 1;
}).observe({ entryTypes: ['gc'] });
const ring = new Array(600);
for (let round = 0; round < 4000; round += 1) {
  const chunk = [];
  for (let index = 0; index < 1000; index += 1) chunk.push({ index, text: 'entry ' + round + ':' + index });
  ring[round % ring.length] = chunk;
}
setTimeout(() => process.stdout.write(String(majors)), 50);
`;

function majorCollections(nodeArguments: string[]): number {
  const result = spawnSync(process.execPath, [...nodeArguments, '-e', promotesGarbage], { encoding: 'utf8', timeout: 30_000 });
  expect(result.status, result.stderr).toBe(0);
  return Number(result.stdout);
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

  it('reads the limit from the environment, leaves V8 alone at 0, and refuses anything else', () => {
    expect(heapArguments({})).toEqual([`--initial-old-space-size=${initialOldSpaceDefaultMb}`]);
    expect(heapArguments({ [initialOldSpaceVariable]: '300' })).toEqual(['--initial-old-space-size=300']);
    expect(heapArguments({ [initialOldSpaceVariable]: '0' })).toEqual([]);
    for (const bad of ['-1', '1.5', 'lots', '1e3x'])
      expect(() => heapArguments({ [initialOldSpaceVariable]: bad }), bad).toThrow(initialOldSpaceVariable);
  });

  it('passes the limit to a started service, and starts nothing with a bad one', async () => {
    const dataDirectory = fs.mkdtempSync(path.join(os.tmpdir(), 'mtx-heap-'));
    const env = {
      ...process.env,
      MONGODB_URL: inject('mongodbUrl'),
      NATS_URL: inject('natsUrl'),
      MONGODB_DATABASE_PREFIX: testDatabasePrefix('heap'),
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDirectory,
      [initialOldSpaceVariable]: '300',
    };
    const service = await startServiceProcess({ name: 'crypto-sandbox', env });
    try {
      expect(commandLine(service.pid!)).toContain('--initial-old-space-size=300');
      await service.restart();
      expect(commandLine(service.pid!)).toContain('--initial-old-space-size=300');
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
