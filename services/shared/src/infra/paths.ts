import path from 'node:path';

/** Repository root, found from this file so scripts work from any working directory. */
export const repositoryRoot = path.resolve(__dirname, '..', '..', '..', '..');

/** Where provisioned tools live; git ignores it and a second run reuses it. */
export const cacheDirectory = process.env.MTX_CACHE_DIR ? path.resolve(process.env.MTX_CACHE_DIR) : path.join(repositoryRoot, '.cache');

export const defaultDataDirectory = process.env.DATA_DIR ? path.resolve(process.env.DATA_DIR) : path.join(repositoryRoot, '.data');
