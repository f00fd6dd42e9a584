import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { repositoryRoot } from '@mtx/shared/infra/paths';
import { provisionChromium } from '@mtx/devstack/chromium';

/** The console's screenshots, kept as test artifacts (git-ignored). */
export const screenshotDirectory = path.join(repositoryRoot, 'test', 'output', 'console');

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: provisionChromium(),
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    timeout: 60_000,
  });
}

export interface WatchedContext {
  context: BrowserContext;
  /** Every URL the pages asked for. */
  requestUrls: string[];
  /** Console errors and page errors (a CSP refusal shows here). */
  problems: string[];
}

/** A fresh browser profile whose requests and errors are recorded, and which may reach only the gateway. */
export async function watchedContext(browser: Browser, baseUrl: string, width = 1280): Promise<WatchedContext> {
  const context = await browser.newContext({ viewport: { width, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] });
  const requestUrls: string[] = [];
  const problems: string[] = [];
  context.on('request', (request) => requestUrls.push(request.url()));
  context.on('page', (page) => {
    page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
    page.on('pageerror', (error) => problems.push(error.message));
  });
  await context.route('**/*', (route) => (route.request().url().startsWith(baseUrl) ? route.continue() : route.abort('blockedbyclient')));
  return { context, requestUrls, problems };
}

export async function signIn(page: Page, baseUrl: string, key: string): Promise<void> {
  await page.goto(`${baseUrl}/console`, { waitUntil: 'load' });
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('key-kind').waitFor({ timeout: 30_000 });
}

/** Opens a page of the console by its fragment and waits until nothing on it is loading. */
export async function openPage(page: Page, name: string): Promise<void> {
  // Browser-side code is passed as text: the tests are type-checked without the DOM's types.
  await page.evaluate(`location.hash = ${JSON.stringify(`#/${name}`)}`);
  await page.locator('h1').first().waitFor();
  // Polled from here: the page's policy forbids the eval a waitForFunction predicate would need.
  for (let attempt = 0; attempt < 300 && (await page.locator('.loading').count()) > 0; attempt += 1) await page.waitForTimeout(100);
}

export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(screenshotDirectory, { recursive: true });
  const file = path.join(screenshotDirectory, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** axe-core's serious and critical violations on the page as it is now (the script is evaluated, never injected as markup). */
export async function seriousViolations(page: Page): Promise<string[]> {
  const loaded = await page.evaluate("typeof axe !== 'undefined'");
  if (!loaded) await page.evaluate(axeSource);
  const violations = (await page.evaluate(`axe.run(document).then((result) => result.violations.map((violation) => ({
    id: violation.id,
    impact: violation.impact,
    targets: violation.nodes.map((node) => JSON.stringify(node.target)),
  })))`)) as Array<{ id: string; impact: string; targets: string[] }>;
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.targets.slice(0, 3).join(' ')}`);
}
