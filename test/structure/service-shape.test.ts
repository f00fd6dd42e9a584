import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { servicesDirectory } from './source-files';

/**
 * Every runnable service has the same shape: its main hands a `ServiceApp` to `runService`, built by its app.ts.
 * That building opens nothing is proven by building each app (app-contract.test.ts), not by reading its text.
 */
describe('one service shape', () => {
  const runnable = fs
    .readdirSync(servicesDirectory)
    .filter((folder) => fs.existsSync(path.join(servicesDirectory, folder, 'src', 'main.ts')));
  const read = (...parts: string[]) => fs.readFileSync(path.join(servicesDirectory, ...parts), 'utf8');

  it('runs every main through runService with an app built by its app.ts', () => {
    const departures: string[] = [];
    for (const folder of runnable) {
      const main = read(folder, 'src', 'main.ts');
      if (!/runService\(logger, async \(\) => \{/.test(main)) departures.push(`${folder}: main does not call runService`);
      if (!/from '\.\/app'/.test(main)) departures.push(`${folder}: main does not build its app from ./app`);
      if (/\.listen\(|startGrpcServer|process\.on\('SIG/.test(main)) departures.push(`${folder}: main serves or handles signals itself`);
    }
    expect(runnable.length).toBeGreaterThanOrEqual(8);
    expect(departures).toEqual([]);
  });
});
