import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import SwaggerParser from '@apidevtools/swagger-parser';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorHttpStatus } from '@mtx/shared/errors';
import { repositoryRoot } from '@mtx/shared/infra/paths';
import { provisionChromium } from '@mtx/devstack/chromium';
import { docsRoutePrefix } from '../../services/gateway/src/handlers/docs';
import { idempotentOperations } from '../../services/gateway/src/plugins/openapi-document';
import { startGatewayHarness, type GatewayHarness } from '../../services/gateway/test/helpers';

/**
 * The API reference at /docs, driven in Debian's headless Chromium (never a downloaded browser): the page
 * renders from /openapi.json with nothing fetched from outside the gateway, POST /v1/orders is on it with
 * its Idempotency-Key header, and a screenshot is left in test/output/. The document itself is checked
 * for what the page must show: headers, error codes, and descriptions on every operation and field.
 */
const outputDirectory = path.join(repositoryRoot, 'test', 'output');
const screenshotFile = path.join(outputDirectory, 'docs-post-v1-orders.png');

let harness: GatewayHarness;
let baseUrl: string;
let context: BrowserContext;
let userDataDirectory: string;
const outsideRequests: string[] = [];
const consoleProblems: string[] = [];

beforeAll(async () => {
  const chromiumPath = provisionChromium();
  harness = await startGatewayHarness();
  await harness.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(harness.app.server.address() as AddressInfo).port}`;
  userDataDirectory = fs.mkdtempSync(path.join(os.tmpdir(), 'mtx-chromium-'));
  context = await chromium.launchPersistentContext(userDataDirectory, {
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1440, height: 1000 },
    timeout: 60_000,
  });
  // Anything the page asks of another origin is recorded and refused: the reference must work offline.
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    if (url.startsWith(baseUrl)) return route.continue();
    outsideRequests.push(url);
    return route.abort('blockedbyclient');
  });
}, 900_000);

afterAll(async () => {
  await context?.close();
  if (userDataDirectory) fs.rmSync(userDataDirectory, { recursive: true, force: true });
  await harness?.close();
});

async function openReference(): Promise<Page> {
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') consoleProblems.push(message.text());
  });
  page.on('pageerror', (error) => consoleProblems.push(error.message));
  const response = await page.goto(`${baseUrl}${docsRoutePrefix}`, { waitUntil: 'load', timeout: 60_000 });
  expect(response?.status()).toBe(200);
  return page;
}

describe('the /docs page in headless Chromium', () => {
  it('renders POST /v1/orders from /openapi.json with nothing fetched from outside, and leaves a screenshot', async () => {
    const documentResponse = new Promise<string>((resolve) =>
      context.on('response', (response) => response.url().endsWith('/openapi.json') && resolve(response.url())),
    );
    const page = await openReference();
    expect(await documentResponse).toBe(`${baseUrl}/openapi.json`);

    // Scalar gives every operation a section whose id ends in the method and path.
    const operation = page.locator('[id$="/POST/v1/orders"]').first();
    await operation.waitFor({ state: 'attached', timeout: 60_000 });
    await operation.scrollIntoViewIfNeeded();
    await expect.poll(async () => operation.innerText(), { timeout: 30_000 }).toContain('/v1/orders');
    const text = await operation.innerText();
    expect(text).toMatch(/POST/i);
    expect(text).toContain('Idempotency-Key');
    // Hosted features that would need the internet are switched off.
    expect(await page.getByText('Ask AI', { exact: false }).count()).toBe(0);

    fs.mkdirSync(outputDirectory, { recursive: true });
    await page.screenshot({ path: screenshotFile });
    expect(fs.statSync(screenshotFile).size).toBeGreaterThan(20_000);

    expect(outsideRequests).toEqual([]);
    expect(consoleProblems.filter((problem) => /Content Security Policy|Refused to/i.test(problem))).toEqual([]);
    await page.close();
  }, 180_000);
});

describe('the reference routes', () => {
  it('are public, not rate-limited, served from the gateway itself, and absent from the document', async () => {
    const redirect = await fetch(`${baseUrl}${docsRoutePrefix}`, { redirect: 'manual' });
    expect(redirect.status).toBe(301);
    const page = await fetch(`${baseUrl}${docsRoutePrefix}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('ratelimit-limit')).toBeNull();
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await page.text();
    // No script, stylesheet or font address on the page points anywhere but here.
    expect(html).not.toMatch(/(src|href)=["']?https?:/i);
    const script = html.match(/<script src="([^"]+)"/)?.[1];
    expect(script).toBeDefined();
    const bundle = await fetch(new URL(script!, `${baseUrl}${docsRoutePrefix}/`));
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toContain('javascript');

    const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths).filter((route) => route.startsWith(docsRoutePrefix))).toEqual([]);
  });
});

type Operation = {
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: Array<{ $ref?: string; name?: string; in?: string }>;
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { headers?: Record<string, { $ref?: string }>; content?: Record<string, { schema: unknown }> }>;
};

describe('the OpenAPI document behind the page', () => {
  let document: {
    info: { description: string };
    paths: Record<string, Record<string, Operation>>;
    components: Record<string, Record<string, unknown>>;
  };
  const operations = () =>
    Object.entries(document.paths).flatMap(([route, item]) =>
      Object.entries(item).map(([method, operation]) => ({ key: `${method.toUpperCase()} ${route}`, operation })),
    );

  beforeAll(async () => {
    document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as typeof document;
  });

  it('is valid OpenAPI 3', async () => {
    await SwaggerParser.validate(structuredClone(document) as never);
  });

  it('documents the Idempotency-Key header on the batch endpoints', () => {
    const parameter = document.components.parameters!.IdempotencyKey as { name: string; in: string; schema: { maxLength: number } };
    expect(parameter).toMatchObject({ name: 'Idempotency-Key', in: 'header', schema: { maxLength: 128 } });
    for (const key of idempotentOperations) {
      const [method, route] = key.split(' ') as [string, string];
      const operation = document.paths[route]?.[method.toLowerCase()];
      expect(operation, key).toBeDefined();
      expect(
        operation!.parameters?.some((entry) => entry.$ref === '#/components/parameters/IdempotencyKey'),
        key,
      ).toBe(true);
      expect(operation!.responses['409'], key).toBeDefined();
    }
  });

  it('puts RateLimit-* headers on every authenticated response and Retry-After on 429 and 503', () => {
    const authenticated = operations().filter(({ operation }) => !(Array.isArray(operation.security) && operation.security.length === 0));
    expect(authenticated.length).toBeGreaterThan(0);
    for (const { key, operation } of authenticated) {
      const success = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
      expect(success.length, key).toBeGreaterThan(0);
      for (const [status, response] of success) {
        for (const header of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'])
          expect(response.headers?.[header]?.$ref, `${key} ${status} ${header}`).toBe(`#/components/headers/${header}`);
      }
      expect(operation.responses['429']?.headers?.['Retry-After'], key).toBeDefined();
      expect(operation.responses['503']?.headers?.['Retry-After'], key).toBeDefined();
    }
  });

  it('explains every public error code', () => {
    for (const [code, status] of Object.entries(errorHttpStatus))
      expect(document.info.description).toContain(`| ${status} | \`${code}\` |`);
  });

  it('gives every operation a tag, summary and description, and every field a description', () => {
    const undocumented: string[] = [];
    const schemas = document.components.schemas as Record<string, unknown>;
    const visit = (schema: unknown, where: string, seen: Set<unknown>) => {
      if (!schema || typeof schema !== 'object' || seen.has(schema)) return;
      seen.add(schema);
      const node = schema as {
        $ref?: string;
        properties?: Record<string, { description?: string; $ref?: string }>;
        items?: unknown;
        anyOf?: unknown[];
        oneOf?: unknown[];
        allOf?: unknown[];
      };
      if (node.$ref) return visit(schemas[node.$ref.replace('#/components/schemas/', '')], where, seen);
      for (const [name, property] of Object.entries(node.properties ?? {})) {
        if (!property.description && !property.$ref) undocumented.push(`${where}.${name}`);
        visit(property, `${where}.${name}`, seen);
      }
      for (const child of [node.items, ...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])]) visit(child, where, seen);
    };
    for (const { key, operation } of operations()) {
      if (!operation.summary) undocumented.push(`${key}: summary`);
      if (!operation.description) undocumented.push(`${key}: description`);
      if (!operation.tags?.length) undocumented.push(`${key}: tags`);
      for (const media of Object.values(operation.requestBody?.content ?? {})) visit(media.schema, `${key} body`, new Set());
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!status.startsWith('2')) continue;
        for (const media of Object.values(response.content ?? {})) visit(media.schema, `${key} ${status}`, new Set());
      }
    }
    expect(undocumented).toEqual([]);
  });
});
