import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundlePath, bundleStale, ensureBuilt } from '../src/build';
import { findRoot, repositoryRoot } from '@mtx/shared/infra/paths';

describe('compiled services', () => {
  it('builds a bundle that knows its inputs: a source newer than the bundle makes it stale, and a rebuild fresh', async () => {
    await ensureBuilt('crypto-sandbox');
    expect(bundleStale('crypto-sandbox')).toBe(false);
    const bundle = bundlePath('crypto-sandbox');
    expect(fs.readFileSync(bundle, 'utf8')).toContain('require("fastify")');
    const record = JSON.parse(fs.readFileSync(path.join(path.dirname(bundle), 'build.json'), 'utf8')) as { inputs: string[] };
    // Its own sources and the workspace's it imports, never node_modules.
    expect(record.inputs).toContain('services/crypto-sandbox/src/main.ts');
    expect(record.inputs.some((input) => input.startsWith('services/shared/src/'))).toBe(true);
    expect(record.inputs.some((input) => input.includes('node_modules'))).toBe(false);
    // A shared source edited after the build.
    const shared = path.join(repositoryRoot, record.inputs.find((input) => input.startsWith('services/shared/src/'))!);
    const later = new Date(fs.statSync(bundle).mtimeMs + 2_000);
    const original = fs.statSync(shared);
    fs.utimesSync(shared, original.atime, later);
    try {
      expect(bundleStale('crypto-sandbox')).toBe(true);
      await ensureBuilt('crypto-sandbox');
      fs.utimesSync(bundle, later, new Date(later.getTime() + 1_000));
      expect(bundleStale('crypto-sandbox')).toBe(false);
    } finally {
      fs.utimesSync(shared, original.atime, original.mtime);
    }
  });

  it("finds the repository root from the sources and from a bundle's folder alike", () => {
    expect(fs.existsSync(path.join(repositoryRoot, 'proto', 'connector', 'v1'))).toBe(true);
    expect(findRoot(path.join(repositoryRoot, 'services', 'gateway', 'dist'))).toBe(repositoryRoot);
    expect(findRoot(path.join(repositoryRoot, 'services', 'shared', 'src', 'infra'))).toBe(repositoryRoot);
  });
});
