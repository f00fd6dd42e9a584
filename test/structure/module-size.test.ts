import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../services/shared/src/infra/paths';
import { servicesDirectory, sourceFiles } from './source-files';

/**
 * A module holds one idea, and past about 400 lines it holds two. Every source file of every service (src/ and
 * scripts/) stays within that; tests, benchmarks and generated files are exempt.
 */
const linesMax = 400;

describe('module size', () => {
  it(`keeps every service source file within ${linesMax} lines`, () => {
    const files = fs
      .readdirSync(servicesDirectory)
      .flatMap((service) => [
        ...sourceFiles(path.join(servicesDirectory, service, 'src'), /\.(ts|tsx|cjs|mjs|js)$/),
        ...sourceFiles(path.join(servicesDirectory, service, 'scripts'), /\.(ts|cjs|mjs|js)$/),
      ]);
    expect(files.length).toBeGreaterThan(100);
    const oversized = files
      .map((file) => ({ file: path.relative(repositoryRoot, file), lines: fs.readFileSync(file, 'utf8').split('\n').length }))
      .filter((entry) => entry.lines > linesMax)
      .map((entry) => `${entry.file}: ${entry.lines} lines`);
    expect(oversized).toEqual([]);
  });
});
