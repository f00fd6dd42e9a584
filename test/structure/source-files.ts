import fs from 'node:fs';
import path from 'node:path';
import { repositoryRoot } from '../../services/shared/src/infra/paths';

/** The workspace packages' folder. */
export const servicesDirectory = path.join(repositoryRoot, 'services');

/** Source files below `directory` whose names match `pattern`: dependencies, builds and generated code left out. */
export function sourceFiles(directory: string, pattern = /\.ts$/): string[] {
  if (!fs.existsSync(directory)) return [];
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    if (['node_modules', 'dist', 'generated'].includes(entry.name)) return [];
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(full, pattern);
    return pattern.test(entry.name) ? [full] : [];
  });
}
