import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { verifyWebhook } from '../../services/client/src/webhooks';
import { openPage, screenshot, seriousViolations } from './console-browser';

/** The full key's API, as the console test reaches it. */
export type Api = (method: string, route: string, body?: unknown) => Promise<{ status: number; body: any }>;

interface OpenPosition {
  ticket: number;
  current_price: number;
  stop_loss: number;
  take_profit: number;
}

const openPositions = async (api: Api): Promise<OpenPosition[]> =>
  (await api('GET', '/v1/positions')).body.results.flatMap((result: { positions?: OpenPosition[] }) => result.positions ?? []);

/**
 * On the positions page, with every match ticked: the selection is shown with its stops, the new stops are sent
 * by a double click (once), each ticket's result is shown, and GET /v1/positions has the new stops.
 */
export async function modifyStopsOfEveryMatch(page: Page, api: Api, expected: number): Promise<void> {
  const before = await openPositions(api);
  expect(before).toHaveLength(expected);
  // Buys: a stop 1 % under the lowest price and a target 1 % over the highest are valid on every ticket.
  const stopLoss = Number((Math.min(...before.map((position) => position.current_price)) * 0.99).toFixed(5));
  const takeProfit = Number((Math.max(...before.map((position) => position.current_price)) * 1.01).toFixed(5));
  await page.getByTestId('modify-open').click();
  expect(await page.getByTestId('modify-selection').locator('tbody tr').count()).toBe(expected);
  await page.getByTestId('modify-stop_loss').fill(String(stopLoss));
  await page.getByTestId('modify-take_profit').fill(String(takeProfit));
  await page.getByTestId('modify-send').dblclick();
  await page.getByTestId('modify-results').waitFor({ timeout: 60_000 });
  expect(await page.getByTestId('modify-results').locator('tbody tr').count()).toBe(expected);
  expect(await page.getByTestId('modify-results').locator('.badge-good').count()).toBe(expected);
  expect(await page.getByTestId('modify-summary').innerText()).toMatch(new RegExp(`^Modified ${expected} of ${expected}: 0 failed`));
  expect(await page.getByTestId('modify-summary').innerText()).not.toContain('replayed');
  const after = await openPositions(api);
  expect(after.map((position) => position.ticket).sort()).toEqual(before.map((position) => position.ticket).sort());
  for (const position of after) {
    expect(position.stop_loss).toBeCloseTo(stopLoss, 5);
    expect(position.take_profit).toBeCloseTo(takeProfit, 5);
  }
  // The table is read again and shows the new stops.
  await expect
    .poll(async () => (await page.getByTestId('stop-loss').allInnerTexts()).filter((text) => text !== '—').length, { timeout: 30_000 })
    .toBe(expected);
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'positions-modified-1280');
}

/**
 * On the webhooks page: the test send of an endpoint pointing at a receiver here; the receiver gets a signed
 * ping and the page lists it among the recent events.
 */
export async function testSendFromWebhooks(page: Page, api: Api): Promise<void> {
  const received: Array<{ body: string; signature: string }> = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ body: Buffer.concat(chunks).toString('utf8'), signature: String(request.headers['mtx-signature'] ?? '') });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    const created = await api('POST', '/v1/webhook_endpoints', { url, enabled_events: ['batch.settled'] });
    expect(created.status).toBe(201);
    await openPage(page, 'webhooks');
    await page.getByTestId('webhook-test').click();
    await page.getByTestId('webhook-test-sent').waitFor({ timeout: 30_000 });
    const eventId = (await page.getByTestId('webhook-test-sent').locator('code').first().innerText()).trim();
    expect(eventId).toMatch(/^evt_[0-9a-f]{32}$/);
    await expect.poll(() => page.getByTestId('event-list').innerText(), { timeout: 30_000 }).toContain(eventId);
    expect(await page.getByTestId('event-list').innerText()).toMatch(/ping/);
    await expect.poll(() => received.length, { timeout: 30_000 }).toBe(1);
    const ping = verifyWebhook(received[0]!.body, received[0]!.signature, created.body.secret);
    expect(ping).toMatchObject({ id: eventId, type: 'ping', data: { endpoint_id: created.body.id } });
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'webhooks-test-sent-1280');
    await api('DELETE', `/v1/webhook_endpoints/${created.body.id}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/**
 * On the accounts page, the first account's settings: a refused value shows the API's message naming the field
 * and changes nothing; a good one is saved (GET shows it); clearing it resets it.
 */
export async function editAccountSettings(page: Page, api: Api): Promise<void> {
  await openPage(page, 'accounts');
  const card = page.getByTestId('account-card').first();
  const accountId = (await card.locator('p.muted code').first().innerText()).trim();
  const path = `/v1/accounts/${accountId}/settings`;
  const before = (await api('GET', path)).body;
  expect(before.max_open_positions).toBeNull();
  const settings = card.getByTestId('account-settings');
  await settings.locator('summary').click();
  await settings.getByTestId('settings-max_open_positions').fill('-3');
  await settings.getByTestId('settings-save').click();
  await expect.poll(() => settings.getByRole('alert').count(), { timeout: 30_000 }).toBe(1);
  expect(await settings.getByRole('alert').innerText()).toContain('max_open_positions');
  expect((await api('GET', path)).body).toEqual(before);
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'accounts-settings-refused-1280');

  await settings.getByTestId('settings-max_open_positions').fill('7');
  await settings.getByTestId('settings-max_volume_per_order').fill('2.5');
  await settings.getByTestId('settings-save').click();
  await expect.poll(async () => (await api('GET', path)).body.max_open_positions, { timeout: 30_000 }).toBe(7);
  expect((await api('GET', path)).body).toMatchObject({ max_volume_per_order: 2.5, trading_enabled: true, allowed_symbols: null });
  await expect.poll(() => settings.getByRole('alert').count()).toBe(0);
  await expect.poll(() => settings.getByTestId('settings-save').isDisabled()).toBe(true);

  // Blank resets: no limit again, as before.
  await settings.getByTestId('settings-max_open_positions').fill('');
  await settings.getByTestId('settings-max_volume_per_order').fill('');
  await settings.getByTestId('settings-save').click();
  await expect.poll(async () => (await api('GET', path)).body.max_open_positions, { timeout: 30_000 }).toBeNull();
  expect((await api('GET', path)).body.max_volume_per_order).toBeNull();
}

interface AssetRow {
  asset_code: string;
  blockchain_code: string;
  is_stable: boolean;
  min_amount_eur_cents: number;
}

const euros = (cents: number) => (cents / 100).toFixed(2);

/**
 * On the top-up page at EUR 25: every offered row shows its pair's minimum as the API gives it, stablecoins first;
 * the pairs 25 is below are listed with theirs, and picking one sets the amount to its minimum, where it is offered.
 */
export async function pickAssetBelowItsMinimum(page: Page, api: Api): Promise<void> {
  await openPage(page, 'topup');
  await page.getByLabel('Amount in EUR').fill('25');
  await page.getByRole('button', { name: 'Choose a coin' }).click();
  await page.locator('.asset-list button').first().waitFor();
  const offered = (await api('GET', '/v1/wallet/assets?amount_eur_cents=2500')).body as AssetRow[];
  const everyPair = (await api('GET', '/v1/wallet/assets?amount_eur_cents=50000')).body as AssetRow[];
  const pairOf = (row: AssetRow) => `${row.asset_code}-${row.blockchain_code}`;
  const larger = everyPair.filter((row) => !offered.some((candidate) => pairOf(candidate) === pairOf(row)));
  expect(larger.length).toBeGreaterThan(0);
  for (const row of offered) {
    expect(await page.getByTestId(`asset-${pairOf(row)}`).count(), pairOf(row)).toBe(1);
    expect(await page.getByTestId(`asset-min-${pairOf(row)}`).innerText(), pairOf(row)).toBe(`min €${euros(row.min_amount_eur_cents)}`);
  }
  const shownLarger = await page
    .locator('[data-testid^="larger-"]')
    .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-testid')));
  expect(shownLarger.sort()).toEqual(larger.map((row) => `larger-${pairOf(row)}`).sort());
  for (const row of larger)
    expect(await page.getByTestId(`asset-min-${pairOf(row)}`).innerText(), pairOf(row)).toBe(`min €${euros(row.min_amount_eur_cents)}`);
  // Stablecoins first in both lists.
  for (const testIdPrefix of ['asset-', 'larger-']) {
    const stableFlags = await page
      .locator(`.asset-list button[data-testid^="${testIdPrefix}"]:not([data-testid^="asset-min-"])`)
      .evaluateAll((nodes) => nodes.map((node) => node.querySelector('.badge-good') !== null));
    expect(stableFlags, testIdPrefix).toEqual([...stableFlags].sort((left, right) => Number(right) - Number(left)));
  }
  expect(await seriousViolations(page)).toEqual([]);
  await screenshot(page, 'topup-assets-1280');

  const target = [...larger].sort((left, right) => right.min_amount_eur_cents - left.min_amount_eur_cents)[0]!;
  await page.getByTestId(`larger-${pairOf(target)}`).click();
  await page.getByTestId(`asset-${pairOf(target)}`).waitFor();
  expect(await page.getByLabel('Amount in EUR').inputValue()).toBe(euros(target.min_amount_eur_cents));
  // Minimums stay within the EUR 500 top-up maximum: no thousands separator.
  expect(await page.getByRole('heading', { name: `2. Coin for €${euros(target.min_amount_eur_cents)}` }).count()).toBe(1);
  expect(await page.getByTestId(`larger-${pairOf(target)}`).count()).toBe(0);
  expect(await page.getByTestId(`asset-min-${pairOf(target)}`).innerText()).toBe(`min €${euros(target.min_amount_eur_cents)}`);
}
