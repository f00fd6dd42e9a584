import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '@mtx/shared/errors';
import { repositoryRoot } from '@mtx/shared/infra/paths';
import type { GatewayApp } from '../context';

/** Where the customer console is served: a single page over this API, called with the key the person pastes in. */
export const consoleRoutePrefix = '/console';

/** The console's build output (services/console/dist, written by the devstack build with the gateway's). */
export const consoleDistDirectory = path.join(repositoryRoot, 'services', 'console', 'dist');

/**
 * Strict: the bundle is the only script (no inline script, no eval), the stylesheet the only style, and the page
 * talks to this origin alone. Images allow data: for the QR code the page draws.
 */
export const consoleContentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const contentTypes: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** Asset names are the build's own: a name, a content hash and an extension, nothing that walks a path. */
const assetNamePattern = /^[A-Za-z0-9_-]+\.(js|css|svg|png)$/;

async function readOrUndefined(file: string): Promise<Buffer | undefined> {
  try {
    return await fs.readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Serves the console's page and its content-hashed assets: the page is revalidated on every load (no-cache) so a
 * new build is picked up at once, and the assets are immutable for a year. Files are read per request, so a
 * rebuild while the gateway runs is served without a restart. Public and outside the rate limits: the page holds
 * no data, every call it makes is authenticated and limited like any client's.
 */
export async function consolePlugin(app: GatewayApp): Promise<void> {
  // An encapsulated scope: the hooks below apply to the console's routes only.
  await app.register(async (scope) => {
    scope.addHook('onRoute', (routeOptions) => {
      routeOptions.config = { ...routeOptions.config, auth: 'public', rateLimit: 'none' };
      routeOptions.schema = { ...routeOptions.schema, hide: true };
    });
    scope.addHook('onRequest', async (_request, reply) => {
      reply.header('content-security-policy', consoleContentSecurityPolicy);
      reply.header('x-content-type-options', 'nosniff');
      reply.header('referrer-policy', 'no-referrer');
      reply.header('cross-origin-opener-policy', 'same-origin');
    });

    scope.get(consoleRoutePrefix, async (request, reply) => {
      const page = await readOrUndefined(path.join(consoleDistDirectory, 'index.html'));
      if (!page) throw new AppError('unavailable', 'the console is not built; run `npm run build gateway`');
      // Revalidated on every load; an unchanged page is a 304 with no body.
      const etag = `"${crypto.createHash('sha256').update(page).digest('base64url').slice(0, 22)}"`;
      reply.header('cache-control', 'no-cache').header('etag', etag);
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      return reply.type('text/html; charset=utf-8').send(page);
    });
    scope.get(`${consoleRoutePrefix}/`, async (_request, reply) => reply.redirect(consoleRoutePrefix, 301));

    scope.get<{ Params: { name: string } }>(`${consoleRoutePrefix}/assets/:name`, async (request, reply) => {
      const { name } = request.params;
      if (!assetNamePattern.test(name)) throw new AppError('not_found', 'no such console asset');
      const file = path.join(consoleDistDirectory, 'assets', name);
      const gzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? '')) ? await readOrUndefined(`${file}.gz`) : undefined;
      const body = gzip ?? (await readOrUndefined(file));
      if (!body) throw new AppError('not_found', 'no such console asset');
      reply.header('cache-control', 'public, max-age=31536000, immutable').header('vary', 'accept-encoding');
      if (gzip) reply.header('content-encoding', 'gzip');
      return reply.type(contentTypes[path.extname(name)] ?? 'application/octet-stream').send(body);
    });
  });
}
