/**
 * Faults against the alerts: each injected fault must make its alert's condition true on the service's own
 * /metrics. A killed connector and a killed store are checked by running the deployed rules with promtool on the
 * samples the services exported before and after the fault (alert-check.ts); a stopped crediting worker by the
 * inbox age it exports, which must grow with the time the postback waits and fall back to 0 once it is credited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@mtx/shared/testing';
import { slos } from '../../deploy/prometheus/slos';
import { alertFiresOn, scrape, total } from './alert-check';
import { FaultStack, sleep, type Customer } from './stack';

let stack: FaultStack;
let customer: Customer;

beforeAll(async () => {
  // The Prometheus reader on, as deployed (the rest of the suite runs without metrics).
  stack = await FaultStack.start({ label: 'alerts', env: { OTEL_SDK_DISABLED: 'false', PROMETHEUS_METRICS: 'true' } });
  customer = await stack.newCustomer('alerts', { accountsPerServer: 1, balanceEurCents: 10_000 });
}, 240_000);

afterAll(async () => {
  if (stack?.serviceErrors.length)
    process.stdout.write(`[faults/alerts] service error lines (see ${stack.logFile}):\n${stack.serviceErrors.slice(-15).join('\n')}\n`);
  await stack?.close();
});

function instanceOf(metricsUrl: string): string {
  return new URL(metricsUrl).host;
}

describe('fault suite: the alerts see the faults', () => {
  it('a killed connector: no responders on execution’s /metrics, and AccountsUnreachableBudgetBurn pages on them', async () => {
    const execution = stack.service('execution');
    const mt4Accounts = customer.accounts.filter((account) => account.platform === 'mt4');
    expect(mt4Accounts.length).toBeGreaterThan(0);
    const legs = mt4Accounts.map((account) => ({ account_id: account.id, symbol: account.symbol, operation: 'buy', volume: 0.1 }));
    // Served first, so the counters exist and the terminal requests are there to compare with.
    const served = await stack.api(customer.fullKey, 'POST', '/v1/orders', { orders: legs });
    expect(served.status).toBe(200);
    const before = await scrape(execution.metricsUrl);

    await stack.service('connector-mt4').kill('SIGKILL');
    try {
      // Every request to an account the dead connector served now finds no subscriber.
      for (let attempt = 0; attempt < 5; attempt++) {
        const answer = await stack.api(customer.fullKey, 'POST', '/v1/orders', { orders: legs });
        expect(answer.status).toBe(200);
        expect((answer.body.results as Array<{ status: string }>).every((result) => result.status === 'unavailable')).toBe(true);
      }
      const after = await scrape(execution.metricsUrl);
      const noResponders =
        total(after, 'mtx_execution_nats_failures_total', { mtx_reason: 'no_responders' }) -
        total(before, 'mtx_execution_nats_failures_total', { mtx_reason: 'no_responders' });
      const requests = total(after, 'mtx_execution_fanout_duration_count') - total(before, 'mtx_execution_fanout_duration_count');
      expect(noResponders).toBeGreaterThanOrEqual(5 * mt4Accounts.length);
      const slo = slos.find((candidate) => candidate.alert === 'AccountsUnreachableBudgetBurn')!;
      expect(noResponders / requests).toBeGreaterThan(14.4 * (1 - slo.target));
      // The per-account view names each account the dead connector left unreachable.
      for (const account of mt4Accounts)
        expect(
          total(after, 'mtx_execution_accounts_unreachable_total', { mtx_account_id: account.id, mtx_platform: 'mt4' }),
        ).toBeGreaterThan(0);

      const verdict = await alertFiresOn({
        before,
        after,
        names: ['mtx_execution_nats_failures_total', 'mtx_execution_fanout_duration_count'],
        target: { job: 'execution', instance: instanceOf(execution.metricsUrl) },
        alert: 'AccountsUnreachableBudgetBurn',
        severity: 'page',
        labels: {},
        atMinutes: 4,
      });
      expect(verdict.fires, verdict.output).toBe(true);
      // Before the fault the same rules stay quiet on the same series.
      const quiet = await alertFiresOn({
        before,
        after: before,
        names: ['mtx_execution_nats_failures_total', 'mtx_execution_fanout_duration_count'],
        target: { job: 'execution', instance: instanceOf(execution.metricsUrl) },
        alert: 'AccountsUnreachableBudgetBurn',
        severity: 'page',
        labels: {},
        atMinutes: 4,
      });
      expect(quiet.fires).toBe(false);
    } finally {
      await stack.service('connector-mt4').restart();
    }
  });

  it('a stopped crediting worker: the inbox age on payments’ /metrics grows while the postback waits, and falls to 0 once credited', async () => {
    await stack.restartServiceWith('payments', { PAYMENTS_CREDITING_ENABLED: 'false', PAYMENTS_INBOX_SWEEP_INTERVAL_MS: '200' });
    const topup = await stack.createTopup(customer, 1_000);
    const answer = await stack.postback(stack.postbackBody(topup, `tx_alerts_${Date.now()}`, topup.depositUnits, 'confirmed'));
    expect(answer.status).toBe(200);
    const acknowledgedAtMs = Date.now();
    const payments = () => stack.service('payments').metricsUrl;
    const ages: number[] = [];
    for (let sample = 0; sample < 4; sample++) {
      await sleep(1_000);
      ages.push(total(await scrape(payments()), 'mtx_payments_inbox_oldest_age'));
    }
    // The age grows with the wait (each sample at least the time since acknowledgement, less a sweep and a scrape).
    for (let index = 1; index < ages.length; index++) expect(ages[index]!, JSON.stringify(ages)).toBeGreaterThan(ages[index - 1]!);
    expect(ages.at(-1)!).toBeGreaterThanOrEqual(Date.now() - acknowledgedAtMs - 1_500);

    await stack.restartServiceWith('payments', {});
    // Credited, a credit-lag sample recorded for it, and the age measured as 0 (a fresh replica reports no age
    // sample until its first sweep, so this 0 is a measurement, not the default).
    await eventually(
      async () => {
        const samples = await scrape(payments());
        const age = samples.find((sample) => sample.name === 'mtx_payments_inbox_oldest_age');
        return total(samples, 'mtx_payments_credit_lag_count') > 0 && age?.value === 0;
      },
      30_000,
      250,
    );
  });

  it('a killed store: every service’s primary gauge drops to 0, and StorePrimaryUnreachable pages on it', async () => {
    const wallet = stack.service('wallet');
    const before = await scrape(wallet.metricsUrl);
    expect(total(before, 'mtx_store_primary_reachable')).toBe(1);
    await stack.store.kill();
    try {
      // The driver's heartbeat (10 s) notices the lost server.
      let after = before;
      await eventually(
        async () => {
          after = await scrape(wallet.metricsUrl);
          return total(after, 'mtx_store_primary_reachable') === 0;
        },
        40_000,
        500,
      );
      const verdict = await alertFiresOn({
        before,
        after,
        names: ['mtx_store_primary_reachable'],
        target: { job: 'wallet', instance: instanceOf(wallet.metricsUrl) },
        alert: 'StorePrimaryUnreachable',
        severity: 'page',
        labels: { job: 'wallet', instance: instanceOf(wallet.metricsUrl) },
        atMinutes: 5,
      });
      expect(verdict.fires, verdict.output).toBe(true);
    } finally {
      await stack.store.start();
    }
    await eventually(async () => total(await scrape(wallet.metricsUrl), 'mtx_store_primary_reachable') === 1, 40_000, 500);
  });
});
