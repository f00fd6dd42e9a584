import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../services/shared/src/infra/paths';
import { servicesDirectory, sourceFiles } from './source-files';

/**
 * No import cycle anywhere in the services' sources. A cycle is how a layer starts to lean on the one above it
 * (a handler on the app that registers it), and modules in a cycle load half-initialised. Type-only imports count
 * too: they tie the modules together just the same for a reader.
 */

/** Workspace package name → its source folder, from each package.json. */
function workspacePackages(): Map<string, string> {
  const packages = new Map<string, string>();
  for (const folder of fs.readdirSync(servicesDirectory)) {
    const manifest = path.join(servicesDirectory, folder, 'package.json');
    if (fs.existsSync(manifest))
      packages.set((JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name: string }).name, path.join(servicesDirectory, folder, 'src'));
  }
  return packages;
}

/** The source file an import names, when it is one of ours (relative, or a workspace package); else undefined. */
function resolveImport(from: string, specifier: string, packages: Map<string, string>): string | undefined {
  let base: string | undefined;
  if (specifier.startsWith('.')) base = path.resolve(path.dirname(from), specifier);
  else {
    const name = [...packages.keys()].find((candidate) => specifier === candidate || specifier.startsWith(`${candidate}/`));
    if (!name) return undefined;
    const rest = specifier.slice(name.length + 1);
    base = path.join(packages.get(name)!, rest || 'index');
  }
  return [`${base}.ts`, path.join(base, 'index.ts')].find((candidate) => fs.existsSync(candidate));
}

/** Import graph of every source file (tests excluded: they may import anything they check). */
function importGraph(): Map<string, string[]> {
  const packages = workspacePackages();
  const files = fs.readdirSync(servicesDirectory).flatMap((folder) => {
    const source = path.join(servicesDirectory, folder, 'src');
    return fs.existsSync(source) ? sourceFiles(source) : [];
  });
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    const imports = [...text.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+'([^']+)'/gms)]
      .map((match) => resolveImport(file, match[1]!, packages))
      .filter((target): target is string => !!target);
    graph.set(file, imports);
  }
  return graph;
}

/** Strongly connected components of more than one module (Tarjan), each a cycle or a knot of them. */
function importCycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (node: string) => {
    index.set(node, next);
    lowest.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        lowest.set(node, Math.min(lowest.get(node)!, lowest.get(target)!));
      } else if (onStack.has(target)) lowest.set(node, Math.min(lowest.get(node)!, index.get(target)!));
    }
    if (lowest.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(component);
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

describe("the services' import graph", () => {
  it('has no cycle', () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(100);
    const cycles = importCycles(graph).map((cycle) =>
      cycle
        .map((file) => path.relative(repositoryRoot, file))
        .sort()
        .join(' <-> '),
    );
    expect(cycles).toEqual([]);
  });

  it('finds a cycle when there is one, through workspace packages and index files alike', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts']],
    ]);
    expect(importCycles(graph).map((cycle) => cycle.sort())).toEqual([['a.ts', 'b.ts', 'c.ts'], ['e.ts']]);
  });
});
