import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createUnaryClient } from '@mtx/shared/grpc';
import { startStack, type Stack } from '@mtx/devstack/services';
import { consoleGzipBytesMax, consoleDistDirectory } from '@mtx/devstack/console-build';
import { connectMongo, databaseName, type MongoClient } from '@mtx/shared/mongo';
import { testDatabasePrefix } from '@mtx/shared/testing';
import fs from 'node:fs';
import path from 'node:path';
import { connectDemoAccounts, createCustomerWithKeys, type DemoAccount } from '../../services/gateway/src/admin/commands';
import { createGatewayStore, ensureGatewayIndexes } from '../../services/gateway/src/store/gateway-store';
import {
  launchChromium,
  openPage,
  screenshot,
  screenshotDirectory,
  seriousViolations,
  signIn,
  watchedContext,
  type WatchedContext,
} from './console-browser';
import { editAccountSettings, modifyStopsOfEveryMatch, pickAssetBelowItsMinimum, testSendFromWebhooks } from './console-writes';

/**
 * The customer console at /console in Debian's headless Chromium against the whole stack as real processes: a
 * top-up paid through the sandbox, the coins' minimums, a mixed MT4/MT5 batch placed, its positions' stops moved, then closed and the
 * batch found in the history; a webhook test send; an account's settings edited; a read-only key that sees no write action; the key in no URL
 * and never in localStorage; no serious accessibility violation on any page (axe-core); a screenshot of every
 * page at 1280 and 390 px.
 */
const prefix = testDatabasePrefix('console');
const pages = ['wallet', 'topup', 'subscription', 'accounts', 'positions', 'trade', 'batches', 'webhooks'];
let stack: Stack;
let mongo: MongoClient;
let customer: { full_key: string; read_key: string; accounts: DemoAccount[] };
let browser: Browser;
const watched: WatchedContext[] = [];

async function api(method: string, route: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${stack.gatewayUrl}${route}`, {
    method,
    headers: { authorization: `Bearer ${customer.full_key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: response.status, body: await response.json() };
}

async function sandboxDeposit(
  topup: { deposit_address: string; asset_code: string; blockchain_code: string },
  amount: bigint,
): Promise<void> {
  const response = await fetch(`${stack.sandboxUrl}/sandbox/deposits`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      address: topup.deposit_address,
      asset_code: topup.asset_code,
      blockchain_code: topup.blockchain_code,
      amount: amount.toString(),
    }),
    signal: AbortSignal.timeout(15_000),
  });
  expect(response.status).toBeLessThan(300);
}

beforeAll(async () => {
  const [started, launched] = await Promise.all([
    startStack({
      mongodbUrl: inject('mongodbUrl'),
      natsUrl: inject('natsUrl'),
      dataDirectory: inject('infrastructureDirectory'),
      env: {
        MONGODB_DATABASE_PREFIX: prefix,
        TERMINAL_SUBJECT_ROOT: prefix.replace(/_/g, ''),
        LOG_LEVEL: 'warn',
        BROKER_SIM_LATENCY_MS: '0',
      },
    }),
    launchChromium(),
  ]);
  stack = started;
  browser = launched;
  mongo = await connectMongo(inject('mongodbUrl'));
  const store = createGatewayStore(mongo.db(databaseName(prefix, 'gateway')));
  await ensureGatewayIndexes(store);
  const created = await createCustomerWithKeys(store, 'Console');
  const execution = createUnaryClient<any>(
    'execution/v1/execution.proto',
    'mtx.execution.v1.ExecutionService',
    stack.env.EXECUTION_GRPC_URL!,
    15_000,
  );
  try {
    const accounts = await connectDemoAccounts(execution, created.customer_id, [
      { platform: 'mt4', count: 2 },
      { platform: 'mt5', count: 2 },
    ]);
    customer = { ...created, accounts };
  } finally {
    execution.close();
  }
}, 300_000);

afterAll(async () => {
  for (const { context } of watched) await context.close().catch(() => undefined);
  await browser?.close();
  await stack?.stop();
  if (mongo) {
    const { databases } = await mongo.db().admin().listDatabases();
    for (const database of databases)
      if (database.name.startsWith(prefix))
        await mongo
          .db(database.name)
          .dropDatabase()
          .catch(() => undefined);
    await mongo.close();
  }
});

async function newPage(width = 1280): Promise<{ page: Page; watch: WatchedContext }> {
  const watch = await watchedContext(browser, stack.gatewayUrl, width);
  watched.push(watch);
  return { page: await watch.context.newPage(), watch };
}

describe('the console, signed in with the full key', () => {
  it('tops up through the sandbox to paid, places a mixed MT4/MT5 batch, moves its stops, closes it, finds it in the history', async () => {
    const { page, watch } = await newPage();
    await signIn(page, stack.gatewayUrl, customer.full_key);
    await page.getByTestId('wallet-balance').waitFor();

    // Top-up: amount, a stablecoin, then the deposit paid in two halves, followed live: pending → partial → paid.
    await openPage(page, 'topup');
    await page.getByLabel('Amount in EUR').fill('25');
    await page.getByRole('button', { name: 'Choose a coin' }).click();
    const firstAsset = page.locator('.asset-list button').first();
    await firstAsset.waitFor();
    expect(await firstAsset.innerText()).toContain('stablecoin');
    await page.getByTestId('asset-USDT-TRON').click();
    await page.waitForURL(/#\/topup\/\d+$/, { timeout: 30_000 });
    const topupId = page.url().split('/').pop()!;
    await expect.poll(() => page.getByTestId('topup-status').innerText(), { timeout: 30_000 }).toMatch(/^pending/);
    await page.getByTestId('topup-qr').waitFor();
    await page.getByTestId('topup-countdown').waitFor();
    const topup = (await api('GET', `/v1/wallet/topup/${topupId}`)).body;
    expect(await page.getByTestId('topup-address').innerText()).toBe(topup.deposit_address);
    expect(await page.getByTestId('topup-amount').innerText()).toBe(`${topup.deposit_amount_decimal} USDT`);
    const half = BigInt(topup.deposit_amount) / 2n;
    await sandboxDeposit(topup, half);
    await expect.poll(() => page.getByTestId('topup-status').innerText(), { timeout: 60_000 }).toMatch(/^partial/);
    await sandboxDeposit(topup, BigInt(topup.deposit_amount) - half);
    await expect.poll(() => page.getByTestId('topup-status').innerText(), { timeout: 60_000 }).toMatch(/^paid/);
    await screenshot(page, 'topup-paid-1280');
    await openPage(page, 'wallet');
    await expect.poll(() => page.getByTestId('wallet-balance').innerText(), { timeout: 30_000 }).toContain('25.00');

    // A batch across all four accounts (two MT4, two MT5): a double click places it once.
    await openPage(page, 'trade');
    await page.getByTestId('leg-per-account').click();
    await page.getByTestId('place-batch').dblclick();
    await page.getByTestId('place-results').waitFor({ timeout: 60_000 });
    const legs = page.getByTestId('place-results').locator('tbody tr');
    expect(await legs.count()).toBe(4);
    expect(await page.getByTestId('place-results').innerText()).toMatch(/mt4[\s\S]*mt5|mt5[\s\S]*mt4/);
    expect(await page.getByTestId('place-summary').innerText()).toMatch(/^4 filled/);
    const batches = (await api('GET', '/v1/orders/batches?kind=orders')).body;
    expect(batches.data).toHaveLength(1);
    const placedBatchId = batches.data[0].batch_id as string;
    await screenshot(page, 'trade-1280');

    // Positions: what a close would take is shown first, then each ticket's result.
    await openPage(page, 'positions');
    await page.getByRole('button', { name: 'Show matches' }).click();
    await expect.poll(() => page.getByTestId('positions-table').locator('tbody tr').count(), { timeout: 30_000 }).toBe(4);
    await screenshot(page, 'positions-1280');
    await modifyStopsOfEveryMatch(page, api, 4);
    await page.getByTestId('close-selected').click();
    await page.getByTestId('close-results').waitFor({ timeout: 60_000 });
    const closed = page.getByTestId('close-results').locator('tbody tr');
    expect(await closed.count()).toBe(4);
    expect(await page.getByTestId('close-results').locator('.badge-good').count()).toBe(4);
    const open = (await api('GET', '/v1/positions')).body;
    expect(open.summary.positions).toBe(0);

    // The history lists the placed batch; its detail opens.
    await openPage(page, 'batches');
    await expect.poll(() => page.getByTestId('batch-list').innerText(), { timeout: 30_000 }).toContain(placedBatchId);
    await page.getByRole('link', { name: placedBatchId }).click();
    await page.getByTestId('batch-summary').waitFor();
    expect(await page.getByTestId('batch-summary').innerText()).toContain('4 filled');

    expect(watch.problems.filter((problem) => /Content Security Policy|Refused to/i.test(problem))).toEqual([]);
  }, 300_000);

  it('sends a test event from the webhooks page: the receiver gets a signed ping, the page lists it', async () => {
    const { page } = await newPage();
    await signIn(page, stack.gatewayUrl, customer.full_key);
    await testSendFromWebhooks(page, api);
  }, 120_000);

  it("shows each coin's minimum, lists the coins the amount is below with theirs, and picks one at its minimum", async () => {
    const { page } = await newPage();
    await signIn(page, stack.gatewayUrl, customer.full_key);
    await pickAssetBelowItsMinimum(page, api);
  }, 120_000);

  it("edits an account's settings: a refused value names the field and changes nothing, a good one is saved", async () => {
    const { page } = await newPage();
    await signIn(page, stack.gatewayUrl, customer.full_key);
    await editAccountSettings(page, api);
  }, 120_000);

  it('has no serious or critical accessibility violation on any page, and leaves a screenshot of each at 1280 and 390 px', async () => {
    for (const width of [1280, 390]) {
      const { page } = await newPage(width);
      await signIn(page, stack.gatewayUrl, customer.full_key);
      const violations: string[] = [];
      for (const name of pages) {
        await openPage(page, name);
        violations.push(...(await seriousViolations(page)).map((violation) => `${name}@${width}: ${violation}`));
        await screenshot(page, `${name}-${width}`);
        if (width === 390) {
          // Nothing but tables (which scroll in their own box) is wider than the screen.
          const overflow = (await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number;
          expect(overflow, `${name} at 390 px`).toBeLessThanOrEqual(0);
        }
      }
      await page.evaluate("location.hash = ''");
      await page.getByTestId('sign-out').click();
      await page.getByLabel('API key').waitFor();
      violations.push(...(await seriousViolations(page)).map((violation) => `sign-in@${width}: ${violation}`));
      expect(violations).toEqual([]);
    }
  }, 300_000);
});

describe('the wallet page', () => {
  it('draws the next 30 days of charges against the balance and marks the shortfall', async () => {
    const { page } = await newPage();
    // The real wallet answer with charges added: a stack just started has no seat that renews within 30 days.
    const dayMs = 86_400_000;
    await page.route('**/v1/wallet', async (route) => {
      const response = await route.fetch();
      const wallet = await response.json();
      const at = (days: number) => new Date(Date.now() + days * dayMs).toISOString();
      wallet.upcoming = [
        { when: at(3), amount_eur_cents: 1500, kind: 'seat', label: 'MT4 desk' },
        { when: at(11), amount_eur_cents: 900, kind: 'server', label: 'vps-small' },
        { when: at(20), amount_eur_cents: 1500, kind: 'seat', label: 'MT5 desk' },
      ];
      wallet.upcoming_total_eur_cents = 3900;
      wallet.shortfall_eur_cents = Math.max(0, 3900 - wallet.balance_eur_cents);
      wallet.covers_upcoming = wallet.shortfall_eur_cents === 0;
      await route.fulfill({ response, json: wallet });
    });
    await signIn(page, stack.gatewayUrl, customer.full_key);
    await page.locator('figure.chart svg').waitFor();
    const balance = (await api('GET', '/v1/wallet')).body.balance_eur_cents as number;
    expect(await page.locator('figure.chart circle').count()).toBe(3);
    const shortfall = page.getByTestId('shortfall');
    if (balance < 3900) {
      expect(await shortfall.innerText()).toContain('MT5 desk');
      expect(await page.locator('figure.chart circle.chart-dot-bad').count()).toBeGreaterThan(0);
    } else expect(await shortfall.count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'wallet-forecast-1280');
    await page.setViewportSize({ width: 390, height: 900 });
    await screenshot(page, 'wallet-forecast-390');
  }, 120_000);
});

describe('errors', () => {
  it('say what failed and what to do: a refused key, a refused leg (nothing traded), a 429 with its retry time', async () => {
    const { page } = await newPage();
    await page.goto(`${stack.gatewayUrl}/console`, { waitUntil: 'load' });
    await page.getByLabel('API key').fill(`sk_${'x'.repeat(46)}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const refused = page.getByRole('alert');
    await refused.waitFor();
    expect(await refused.innerText()).toMatch(/Signing in failed[\s\S]*Sign out and paste a current key/);

    await signIn(page, stack.gatewayUrl, customer.full_key);
    const batchesBefore = (await api('GET', '/v1/orders/batches')).body.data.length as number;
    await openPage(page, 'trade');
    await page.getByLabel('Leg 1 account').selectOption(customer.accounts[0]!.id);
    await page.getByLabel('Leg 1 volume').fill('-1');
    await page.getByTestId('place-batch').click();
    const invalid = page.getByRole('alert');
    await invalid.waitFor({ timeout: 30_000 });
    const text = await invalid.innerText();
    expect(text).toContain('Placing the batch failed');
    expect(text).toContain('orders[0].volume');
    expect(text).toContain('Correct the field named above');
    expect(text).toMatch(/Request id: req_/);
    expect((await api('GET', '/v1/orders/batches')).body.data.length).toBe(batchesBefore);

    await page.route('**/v1/wallet', (route) =>
      route.fulfill({
        status: 429,
        headers: { 'retry-after': '7', 'content-type': 'application/json' },
        body: JSON.stringify({ error: { code: 'rate_limited', message: 'too many requests' }, request_id: 'req_limited' }),
      }),
    );
    await openPage(page, 'wallet');
    const limited = page.getByRole('alert');
    await limited.waitFor({ timeout: 30_000 });
    expect(await limited.innerText()).toMatch(/Too many requests in the last minute\. Retry in 7 s\./);
  }, 120_000);
});

describe('the console, signed in with a read-only key', () => {
  it('offers no write action on any page and says why', async () => {
    const { page } = await newPage();
    await signIn(page, stack.gatewayUrl, customer.read_key);
    expect(await page.getByTestId('key-kind').innerText()).toBe('read-only key');
    for (const name of pages) {
      await openPage(page, name);
      for (const selector of [
        '[data-testid=place-batch]',
        '[data-testid=close-selected]',
        '[data-testid=modify-open]',
        '[data-testid=webhook-test]',
        '[data-testid=leg-per-account]',
        '.asset-list button',
      ])
        expect(await page.locator(selector).count(), `${name}: ${selector}`).toBe(0);
      for (const label of ['Top up', 'Add endpoint', 'Remove', 'Choose a coin'])
        expect(await page.getByRole('button', { name: label, exact: true }).count(), `${name}: ${label}`).toBe(0);
      expect(await page.locator('main a.button').count(), `${name}: a link styled as an action`).toBe(0);
      if (['topup', 'trade', 'webhooks'].includes(name)) expect(await page.getByTestId('read-only-notice').count(), name).toBe(1);
    }
    await openPage(page, 'positions');
    if (await page.locator('[data-testid=positions-table] input[type=checkbox]').count())
      expect(await page.locator('[data-testid=positions-table] input[type=checkbox]:enabled').count()).toBe(0);
  }, 120_000);
});

describe('the key', () => {
  it('is in no request URL, no page URL and never in localStorage; signing out forgets it', async () => {
    const { page, watch } = await newPage();
    await signIn(page, stack.gatewayUrl, customer.full_key);
    for (const name of pages) await openPage(page, name);
    const storage = (await page.evaluate(
      '({ local: Object.entries(localStorage).map(([name, value]) => name + "=" + value), session: Object.values(sessionStorage) })',
    )) as { local: string[]; session: string[] };
    expect(storage.local.join('\n')).not.toContain(customer.full_key);
    expect(storage.session).toContain(customer.full_key);
    for (const keyPart of [customer.full_key, customer.full_key.slice(3, 23)])
      expect(watch.requestUrls.filter((url) => url.includes(keyPart))).toEqual([]);
    expect(watch.requestUrls.some((url) => url.includes('/v1/'))).toBe(true);
    expect(page.url()).not.toContain(customer.full_key);
    await page.getByTestId('sign-out').click();
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate("Object.values(sessionStorage).join(' ')")).not.toContain(customer.full_key);
  }, 120_000);
});

describe('how /console is served', () => {
  it('with a strict policy, a no-cache page, immutable hashed assets gzipped, and a bundle within its budget', async () => {
    const response = await fetch(`${stack.gatewayUrl}/console`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const policy = response.headers.get('content-security-policy')!;
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toMatch(/unsafe-inline|unsafe-eval/);
    const html = await response.text();
    const revalidated = await fetch(`${stack.gatewayUrl}/console`, { headers: { 'if-none-match': response.headers.get('etag')! } });
    expect(revalidated.status).toBe(304);
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/(src|href)=["']?https?:/i);
    const assets = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((match) => match[1]!);
    expect(assets.length).toBe(2);
    for (const asset of assets) {
      const served = await fetch(`${stack.gatewayUrl}${asset}`, { headers: { 'accept-encoding': 'gzip' } });
      expect(served.status).toBe(200);
      expect(served.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(served.headers.get('content-encoding')).toBe('gzip');
    }
    const record = JSON.parse(fs.readFileSync(path.join(consoleDistDirectory, 'build.json'), 'utf8')) as { gzipBytesTotal: number };
    expect(record.gzipBytesTotal).toBeLessThanOrEqual(consoleGzipBytesMax);
    // Anything that is not one of the build's asset names is refused, paths that walk out included.
    expect((await fetch(`${stack.gatewayUrl}/console/assets/..%2F..%2Fpackage.json`)).status).toBe(404);
    expect((await fetch(`${stack.gatewayUrl}/console/assets/nothing-here.js`)).status).toBe(404);
    expect((await fetch(`${stack.gatewayUrl}/console/`, { redirect: 'manual' })).status).toBe(301);
  });

  it('records the first load of the wallet page (test/output/console/first-load.json; figures, not assertions)', async () => {
    const samples: Array<Record<string, number>> = [];
    // Five fresh profiles (nothing cached), one after another: the machine is shared, so one sample says little.
    for (let sample = 0; sample < 5; sample += 1) {
      const { page, watch } = await newPage();
      await page.goto(`${stack.gatewayUrl}/console`, { waitUntil: 'load' });
      await page.getByLabel('API key').waitFor();
      const cold = (await page.evaluate(`(() => {
        const navigation = performance.getEntriesByType('navigation')[0];
        const resources = performance.getEntriesByType('resource');
        return {
          signInShownMs: Math.round(performance.now()),
          domContentLoadedMs: Math.round(navigation.domContentLoadedEventEnd),
          transferredBytes: navigation.transferSize + resources.reduce((total, entry) => total + entry.transferSize, 0),
        };
      })()`)) as Record<string, number>;
      await page.getByLabel('API key').fill(customer.full_key);
      const clickedMs = (await page.evaluate('performance.now()')) as number;
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByTestId('wallet-balance').waitFor();
      const balanceShownMs = (await page.evaluate('performance.now()')) as number;
      // Again with the assets cached and the key in the session: what a returning visit to the wallet costs.
      await page.reload({ waitUntil: 'load' });
      await page.getByTestId('wallet-balance').waitFor();
      const warmBalanceShownMs = (await page.evaluate('performance.now()')) as number;
      samples.push({
        ...cold,
        signInToBalanceMs: Math.round(balanceShownMs - clickedMs),
        warmReloadToBalanceMs: Math.round(warmBalanceShownMs),
        requests: watch.requestUrls.length,
      });
      await watch.context.close();
    }
    const median = (name: string) => samples.map((entry) => entry[name]!).sort((left, right) => left - right)[2]!;
    const figures = {
      medians: Object.fromEntries(Object.keys(samples[0]!).map((name) => [name, median(name)])),
      samples,
    };
    fs.mkdirSync(screenshotDirectory, { recursive: true });
    fs.writeFileSync(path.join(screenshotDirectory, 'first-load.json'), `${JSON.stringify(figures, null, 2)}\n`);
    expect(samples.every((entry) => entry.transferredBytes! > 0)).toBe(true);
  }, 180_000);
});
