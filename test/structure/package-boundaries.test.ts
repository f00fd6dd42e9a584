import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../services/shared/src/infra/paths';
import { servicesDirectory, sourceFiles } from './source-files';

/**
 * A workspace package reaches another only through its package name (`@mtx/gateway/...`), never by a relative
 * path into the other's folder, and only if it lists it as a dependency: the dependency lists then say what
 * depends on what.
 */
describe('workspace package boundaries', () => {
  const packages = fs
    .readdirSync(servicesDirectory)
    .filter((folder) => fs.existsSync(path.join(servicesDirectory, folder, 'package.json')));
  const manifest = (folder: string) =>
    JSON.parse(fs.readFileSync(path.join(servicesDirectory, folder, 'package.json'), 'utf8')) as {
      name: string;
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };

  it('has no relative import from one package into another', () => {
    const crossings: string[] = [];
    for (const folder of packages) {
      const root = path.join(servicesDirectory, folder);
      for (const file of ['src', 'scripts', 'examples'].flatMap((part) => sourceFiles(path.join(root, part)))) {
        for (const match of fs.readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
          const target = path.resolve(path.dirname(file), match[1]!);
          if (!target.startsWith(root + path.sep)) crossings.push(`${path.relative(repositoryRoot, file)} → ${match[1]}`);
        }
      }
    }
    expect(packages.length).toBeGreaterThan(8);
    expect(crossings).toEqual([]);
  });

  it('lists every workspace package it imports as a dependency', () => {
    const names = new Map(packages.map((folder) => [manifest(folder).name, folder]));
    const missing: string[] = [];
    for (const folder of packages) {
      const own = manifest(folder);
      const declared = new Set([...Object.keys(own.dependencies ?? {}), ...Object.keys(own.devDependencies ?? {})]);
      const root = path.join(servicesDirectory, folder);
      for (const file of ['src', 'scripts', 'examples'].flatMap((part) => sourceFiles(path.join(root, part)))) {
        for (const match of fs.readFileSync(file, 'utf8').matchAll(/from '(@mtx\/[a-z-]+)/g)) {
          const name = match[1]!;
          if (name !== own.name && names.has(name) && !declared.has(name))
            missing.push(`${own.name} imports ${name} (${path.relative(root, file)})`);
        }
      }
    }
    expect([...new Set(missing)]).toEqual([]);
  });
});
