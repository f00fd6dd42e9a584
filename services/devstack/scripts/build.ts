/**
 * `npm run build [service ...]`: bundles each service (all by default) into services/<name>/dist/main.js (see
 * services/devstack/src/build.ts). The process runner builds a stale bundle by itself; this is for images
 * and for building ahead.
 */
import { buildService } from '../src/build';
import { serviceNames } from '../src/services';

async function main(): Promise<void> {
  const requested = process.argv.slice(2);
  const unknown = requested.filter((name) => !(serviceNames as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`unknown service(s): ${unknown.join(', ')}; services: ${serviceNames.join(', ')}`);
  const services = requested.length > 0 ? requested : [...serviceNames];
  const startedMs = Date.now();
  await Promise.all(services.map((service) => buildService(service)));
  process.stdout.write(`[build] ${services.length} service(s) bundled into services/<name>/dist/main.js in ${Date.now() - startedMs} ms\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`[build] ${(error as Error).message}\n`);
  process.exit(1);
});
