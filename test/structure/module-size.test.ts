import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../services/shared/src/infra/paths';

/**
 * A module holds one idea, and past about 400 lines it holds two. Every source file of every service (src/ and
 * scripts/) stays within that; tests, benchmarks and generated files are exempt.
 */
const linesMax = 400;
const servicesDirectory = path.join(repositoryRoot, 'services');

function sourceFiles(directory: string): string[] {
  if (!fs.existsSync(directory)) return [];
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    if (['node_modules', 'dist', 'generated'].includes(entry.name)) return [];
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|cjs|mjs|js)$/.test(entry.name) ? [full] : [];
  });
}

describe('module size', () => {
  it(`keeps every service source file within ${linesMax} lines`, () => {
    const files = fs
      .readdirSync(servicesDirectory)
      .flatMap((service) => [
        ...sourceFiles(path.join(servicesDirectory, service, 'src')),
        ...sourceFiles(path.join(servicesDirectory, service, 'scripts')),
      ]);
    expect(files.length).toBeGreaterThan(100);
    const oversized = files
      .map((file) => ({ file: path.relative(repositoryRoot, file), lines: fs.readFileSync(file, 'utf8').split('\n').length }))
      .filter((entry) => entry.lines > linesMax)
      .map((entry) => `${entry.file}: ${entry.lines} lines`);
    expect(oversized).toEqual([]);
  });
});
