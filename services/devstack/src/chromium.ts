import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

/**
 * The browser the end-to-end tests drive (the API reference at /docs, the console at /console): Debian's
 * Chromium, never a browser downloaded by a test library. `CHROMIUM_PATH` points at another build.
 */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Installs Debian's chromium package when the browser is missing, as `npm test`'s provisioning step does for
 * FerretDB and nats-server, refreshing the package lists once if the first try fails. Needs apt-get and root
 * (a CI container); elsewhere it fails naming what to install.
 */
export function provisionChromium(progress: (line: string) => void = (line) => process.stderr.write(`[provision] ${line}\n`)): string {
  if (fs.existsSync(chromiumPath)) return chromiumPath;
  progress(`installing chromium with apt-get (${chromiumPath} is missing)`);
  const aptEnvironment = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () =>
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], {
      env: aptEnvironment,
      stdio: 'pipe',
      timeout: 600_000,
    });
  try {
    try {
      install();
    } catch {
      execFileSync('apt-get', ['update'], { env: aptEnvironment, stdio: 'pipe', timeout: 300_000 });
      install();
    }
  } catch (error) {
    throw new Error(
      `could not install chromium with apt-get (${(error as Error).message.split('\n')[0]}): install Chromium and set CHROMIUM_PATH to it`,
    );
  }
  if (!fs.existsSync(chromiumPath)) throw new Error(`apt-get installed chromium but ${chromiumPath} is missing`);
  return chromiumPath;
}
