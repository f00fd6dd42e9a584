import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { namedProcessCpuMs, processTreeCpuMs } from './process-cpu';

// Burns `ms` of its own CPU time (not wall time), so the figures do not depend on the machine's load.
const burn = (ms: number) => `const until = ${ms} * 1000; while (process.cpuUsage().user < until) {}`;

/**
 * A parent that idles while two children burn CPU: one exits (its time moves to the parent's cutime when it is
 * reaped), one stays alive until told to stop. It prints "burnt" once both children have burnt their share.
 */
const parentScript = `
const { spawn } = require('node:child_process');
const exiting = spawn(process.execPath, ['-e', ${JSON.stringify(burn(300))}], { stdio: 'ignore' });
const staying = spawn(process.execPath, ['-e', ${JSON.stringify(`${burn(300)}; process.stdout.write('done'); setInterval(() => {}, 1000);`)}], { stdio: ['ignore', 'pipe', 'ignore'] });
let exited = false, done = false;
const report = () => { if (exited && done) process.stdout.write('burnt\\n'); };
exiting.on('exit', () => { exited = true; report(); });
staying.stdout.once('data', () => { done = true; report(); });
process.on('SIGTERM', () => { staying.kill('SIGKILL'); process.exit(0); });
`;

describe.runIf(process.platform === 'linux')('process CPU figures', () => {
  it("counts a forking server's whole tree, children that exited included, and a plain process alone", async () => {
    const parent = spawn(process.execPath, ['-e', parentScript], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const pid = parent.pid!;
      const treeBefore = processTreeCpuMs(pid)!;
      const ownBefore = namedProcessCpuMs('ferretdb', pid)!;
      let output = '';
      parent.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      while (!output.includes('burnt')) await once(parent.stdout!, 'data');
      const tree = processTreeCpuMs(pid)! - treeBefore;
      const own = namedProcessCpuMs('ferretdb', pid)! - ownBefore;
      // Two children at 300 ms each (CPU-time clocks tick at 10 ms), beyond the parent's own start-up.
      expect(tree).toBeGreaterThanOrEqual(560);
      expect(namedProcessCpuMs('postgresql', pid)! - treeBefore).toBeGreaterThanOrEqual(tree);
      // The parent itself only waited: its own time is a fraction of its tree's.
      expect(own).toBeLessThan(tree - 400);
    } finally {
      parent.kill('SIGTERM');
      await once(parent, 'exit');
    }
    expect(processTreeCpuMs(parent.pid!)).toBeUndefined();
  });
});
