import fs from 'node:fs';
import path from 'node:path';

/**
 * The repository (or image) root: the nearest directory above this code that holds both `proto/` and `services/`.
 * Found by walking up rather than by a fixed depth, so it holds from the TypeScript sources and from a service's
 * bundle (services/<name>/dist/main.js) alike, in any working directory.
 */
export function findRoot(start: string = __dirname): string {
  for (let directory = path.resolve(start); ; directory = path.dirname(directory)) {
    if (fs.existsSync(path.join(directory, 'proto')) && fs.existsSync(path.join(directory, 'services'))) return directory;
    if (path.dirname(directory) === directory) throw new Error(`no directory with proto/ and services/ above ${start}`);
  }
}

export const repositoryRoot = findRoot();

/** Where provisioned tools live; git ignores it and a second run reuses it. */
export const cacheDirectory = process.env.MTX_CACHE_DIR ? path.resolve(process.env.MTX_CACHE_DIR) : path.join(repositoryRoot, '.cache');

export const defaultDataDirectory = process.env.DATA_DIR ? path.resolve(process.env.DATA_DIR) : path.join(repositoryRoot, '.data');
