/**
 * The service-level objectives and the alerts on them: the one source from which deploy/prometheus/generate.ts
 * writes the Prometheus rule file (deploy/prometheus/rules/mtx.rules.yml, which compose loads), the Kubernetes
 * PrometheusRule (deploy/k8s/monitoring/prometheus-rule.yaml), promtool's unit tests of every alert
 * (deploy/prometheus/rules/mtx.rules.test.yml) and the SLO table in docs/operations.md.
 *
 * Burn rates follow the Google SRE workbook ("Alerting on SLOs", multiwindow, multi-burn-rate): a page when the
 * last hour burnt the 30-day budget 14.4 times as fast as allowed (2 % of it) and the last 5 minutes still do, or
 * the last 6 hours 6 times (5 %) and the last 30 minutes still do; a ticket when the last day burnt it 3 times as
 * fast (10 %) and the last 2 hours still do, or the last 3 days at all faster than allowed and the last 6 hours
 * still do. The short window makes an alert stop soon after the burning stops.
 */

/** Where runbook_url points: the repository's docs/runbooks/<alert>.md (set to the host the repository lives on). */
export const runbookBase = 'https://git.example.com/mtx/mtx/blob/main/docs/runbooks/';

export type Window = '5m' | '30m' | '1h' | '2h' | '6h' | '1d' | '3d';
export const windows: Window[] = ['5m', '30m', '1h', '2h', '6h', '1d', '3d'];

/** One input series of a promtool unit test: a selector and its samples, one a minute from time 0. */
export interface TestSeries {
  series: string;
  values: string;
}

export interface Slo {
  /** Short name: the recording rules are `slo:<name>:error_ratio_rate<window>`. */
  name: string;
  /** The burn-rate alert's name, also its runbook's file name. */
  alert: string;
  /** What is promised, in words, for the docs and the alert's description. */
  objective: string;
  /** The share of events (or minutes) that must be good over 30 days. */
  target: number;
  /** The SLI in words: what counts as bad, out of what. */
  indicator: string;
  /** PromQL of the share of bad events over `window`, 0 to 1, summed `by` these labels (none: the whole system). */
  errorRatio: (window: Window) => string;
  by?: string[];
  /**
   * A rule recorded every evaluation (1 minute) that the error ratio averages, for an SLI over minutes rather than
   * events (a 3-day subquery re-evaluated every minute would cost far more).
   */
  perMinute?: { record: string; expr: string };
  /** The series for promtool's tests: `bad` is the share of bad events to make (0, above budget, far above). */
  testSeries: (bad: number) => TestSeries[];
  /** Labels the test series carry that the alert keeps (the `by` labels). */
  testLabels?: Record<string, string>;
  /**
   * Whether the test may burn just above budget (the ticket fires, the page stays quiet): false for an SLI over
   * minutes (a share of minutes cannot be made exactly from whole minutes in a short test).
   */
  slowBurnTest?: boolean;
}

/**
 * Minutes of samples in each promtool test (alerts are checked at minute 90). A constant share of bad events is
 * the same share over every window, the 3-day one included, so short series test every burn rate.
 */
export const testMinutes = 120;

/** A counter growing `perMinute` a minute for `minutes` minutes (promtool's expanding notation). */
function counter(perMinute: number, minutes = testMinutes): string {
  return `0+${perMinute}x${minutes}`;
}

/** Bad events of a latency SLI: requests counted, less those in the bucket at or under the threshold. */
function slowShare(metric: string, selector: string, thresholdMs: number, by: string[], window: Window): string {
  const grouping = by.length > 0 ? ` by (${by.join(', ')})` : '';
  const total = `sum${grouping}(rate(${metric}_count${selector ? `{${selector}}` : ''}[${window}]))`;
  const fast = `sum${grouping}(rate(${metric}_bucket{${selector}${selector ? ',' : ''}le="${thresholdMs}"}[${window}]))`;
  return `(${total} - ${fast}) / ${total}`;
}

/** Test series of a latency SLI: 100 requests a minute, `bad` of them above the threshold. */
function latencySeries(metric: string, labels: string, thresholdMs: number, bad: number): TestSeries[] {
  const inner = labels ? `${labels},` : '';
  return [
    { series: `${metric}_count{${labels}}`, values: counter(100) },
    { series: `${metric}_bucket{${inner}le="${thresholdMs}"}`, values: counter(Number((100 * (1 - bad)).toFixed(4))) },
  ];
}

const batchRoutes = 'http_request_method="POST",http_route=~"/v1/orders|/v1/orders/close"';

export const slos: Slo[] = [
  {
    name: 'batch_latency',
    alert: 'BatchLatencyBudgetBurn',
    objective: '99 % of order and close batches (POST /v1/orders, POST /v1/orders/close) answer within 1 s',
    target: 0.99,
    indicator: 'batches answered in more than 1,000 ms, out of all batches (the gateway request histogram)',
    errorRatio: (window) => slowShare('mtx_gateway_request_duration', batchRoutes, 1000, [], window),
    testSeries: (bad) => latencySeries('mtx_gateway_request_duration', 'http_request_method="POST",http_route="/v1/orders"', 1000, bad),
  },
  {
    name: 'legs_unknown',
    alert: 'LegsUnknownBudgetBurn',
    objective: '99.9 % of order legs and close tickets end with a known outcome (not `unknown`) when the batch answers',
    target: 0.999,
    indicator: 'legs ending `unknown` at response time, out of all legs and close tickets',
    errorRatio: (window) =>
      `sum(rate(mtx_execution_leg_outcomes_total{mtx_status="unknown"}[${window}])) / sum(rate(mtx_execution_leg_outcomes_total[${window}]))`,
    testSeries: (bad) => [
      { series: 'mtx_execution_leg_outcomes_total{mtx_status="filled"}', values: counter(Number((1000 * (1 - bad)).toFixed(4))) },
      { series: 'mtx_execution_leg_outcomes_total{mtx_status="unknown"}', values: counter(Number((1000 * bad).toFixed(4))) },
    ],
  },
  {
    name: 'reconcile_time',
    alert: 'ReconcileTimeBudgetBurn',
    objective: '99 % of legs left `unknown` are reconciled with the broker within 5 minutes',
    target: 0.99,
    indicator: 'unknown legs whose outcome reconciliation found after more than 300,000 ms, out of all it found',
    errorRatio: (window) => slowShare('mtx_execution_reconcile_duration', '', 300000, [], window),
    testSeries: (bad) => latencySeries('mtx_execution_reconcile_duration', '', 300000, bad),
  },
  {
    name: 'credit_lag',
    alert: 'CreditLagBudgetBurn',
    objective: "99 % of acknowledged postbacks are credited to the customer's wallet within 60 s",
    target: 0.99,
    indicator: 'credits made more than 60,000 ms after their postback was acknowledged, out of all credits',
    errorRatio: (window) => slowShare('mtx_payments_credit_lag', '', 60000, [], window),
    testSeries: (bad) => latencySeries('mtx_payments_credit_lag', 'mtx_provider="sandbox"', 60000, bad),
  },
  {
    name: 'inbox_age',
    alert: 'InboxAgeBudgetBurn',
    objective: 'in 99.9 % of minutes, the oldest acknowledged and uncredited postback is younger than 2 minutes',
    target: 0.999,
    indicator: 'minutes in which the oldest uncredited inbox record (any replica) was 120,000 ms old or older',
    perMinute: { record: 'slo:inbox_age:stale', expr: 'max(mtx_payments_inbox_oldest_age) >= bool 120000' },
    errorRatio: (window) => `avg_over_time(slo:inbox_age:stale[${window}])`,
    testSeries: (bad) => [
      { series: 'mtx_payments_inbox_oldest_age{instance="payments-0"}', values: `${bad > 0 ? 600000 : 0}x${testMinutes}` },
    ],
    slowBurnTest: false,
  },
  {
    name: 'webhook_lag',
    alert: 'WebhookLagBudgetBurn',
    objective: "99 % of webhook events reach the customer's endpoint within 60 s of being recorded",
    target: 0.99,
    indicator: 'events delivered (answered 2xx) more than 60,000 ms after they were recorded, out of all delivered',
    errorRatio: (window) => slowShare('mtx_notifications_delivery_lag', '', 60000, [], window),
    testSeries: (bad) => latencySeries('mtx_notifications_delivery_lag', 'mtx_event_type="order.filled"', 60000, bad),
  },
  {
    name: 'scheduler_lag',
    alert: 'SchedulerLagBudgetBurn',
    objective: '99 % of due renewals, releases and retries are picked up by the scheduler within 2 minutes',
    target: 0.99,
    indicator: 'items picked up more than 120,000 ms after they fell due, out of all items picked up',
    errorRatio: (window) => slowShare('mtx_billing_scheduler_lag', '', 120000, [], window),
    testSeries: (bad) => latencySeries('mtx_billing_scheduler_lag', 'mtx_kind="seat"', 120000, bad),
  },
  {
    name: 'accounts_reachable',
    alert: 'AccountsUnreachableBudgetBurn',
    objective: '99.9 % of terminal requests find a connector serving the account (no NATS `no responders`)',
    target: 0.999,
    indicator: 'terminal requests answered `no_responders`, out of all terminal requests execution sent',
    errorRatio: (window) =>
      `sum(rate(mtx_execution_nats_failures_total{mtx_reason="no_responders"}[${window}])) / sum(rate(mtx_execution_fanout_duration_count[${window}]))`,
    testSeries: (bad) => [
      { series: 'mtx_execution_fanout_duration_count{mtx_op="place"}', values: counter(1000) },
      {
        series: 'mtx_execution_nats_failures_total{mtx_op="place",mtx_reason="no_responders"}',
        values: counter(Number((1000 * bad).toFixed(4))),
      },
    ],
  },
  {
    name: 'server_errors',
    alert: 'ServerErrorsBudgetBurn',
    objective: '99.9 % of API requests on each route are answered without a 5xx',
    target: 0.999,
    indicator: 'requests answered 500-599, out of all requests, per route',
    by: ['http_route'],
    errorRatio: (window) =>
      `sum by (http_route) (rate(mtx_gateway_request_duration_count{http_response_status_code=~"5.."}[${window}])) / sum by (http_route) (rate(mtx_gateway_request_duration_count[${window}]))`,
    testSeries: (bad) => [
      {
        series: 'mtx_gateway_request_duration_count{http_route="/v1/balance",http_response_status_code="200"}',
        values: counter(Number((1000 * (1 - bad)).toFixed(4))),
      },
      {
        series: 'mtx_gateway_request_duration_count{http_route="/v1/balance",http_response_status_code="503"}',
        values: counter(Number((1000 * bad).toFixed(4))),
      },
      { series: 'mtx_gateway_request_duration_count{http_route="/v1/accounts",http_response_status_code="200"}', values: counter(1000) },
    ],
    testLabels: { http_route: '/v1/balance' },
  },
];

/** A symptom alert: a condition that needs a person whatever the budgets say. */
export interface SymptomAlert {
  alert: string;
  expr: string;
  for: string;
  severity: 'page' | 'ticket';
  summary: string;
  description: string;
  /** promtool tests: series that must fire the alert (with the labels it fires with) and series that must not. */
  fires: { series: TestSeries[]; labels: Record<string, string>; atMinutes: number };
  quiet: { series: TestSeries[]; atMinutes: number };
}

export const symptomAlerts: SymptomAlert[] = [
  {
    alert: 'ConnectorWithoutTerminals',
    expr: 'max by (job, instance, mtx_platform) (mtx_connector_terminals_attached) == 0',
    for: '15m',
    severity: 'ticket',
    summary: 'A connector replica has served no terminal for 15 minutes',
    description:
      'The replica is up but no terminal has dialled it (or every terminal left): its share of the accounts is served elsewhere or nowhere.',
    fires: {
      series: [{ series: 'mtx_connector_terminals_attached{job="connector-mt4",instance="mt4-0",mtx_platform="mt4"}', values: '3 3 0x40' }],
      labels: { job: 'connector-mt4', instance: 'mt4-0', mtx_platform: 'mt4' },
      atMinutes: 30,
    },
    quiet: {
      series: [{ series: 'mtx_connector_terminals_attached{job="connector-mt4",instance="mt4-0",mtx_platform="mt4"}', values: '0x5 2x40' }],
      atMinutes: 30,
    },
  },
  {
    alert: 'ClaimsReplicasBelowSetting',
    expr: 'min by (mtx_bucket) (mtx_connector_claims_replicas) < on (mtx_bucket) max by (mtx_bucket) (mtx_connector_claims_replicas_setting)',
    for: '10m',
    severity: 'ticket',
    summary: "The connectors' claims bucket has fewer current copies than CONNECTOR_CLAIMS_REPLICAS",
    description:
      'A NATS node holding a copy of the client-id claims is down or behind; one more loss can lose claims, and a retried batch could then send a leg twice.',
    fires: {
      series: [
        { series: 'mtx_connector_claims_replicas{instance="mt4-0",mtx_bucket="connector_claims"}', values: '3 3 2x30' },
        { series: 'mtx_connector_claims_replicas_setting{instance="mt4-0",mtx_bucket="connector_claims"}', values: '3x32' },
      ],
      labels: { mtx_bucket: 'connector_claims' },
      atMinutes: 20,
    },
    quiet: {
      series: [
        { series: 'mtx_connector_claims_replicas{instance="mt4-0",mtx_bucket="connector_claims"}', values: '3x30' },
        { series: 'mtx_connector_claims_replicas_setting{instance="mt4-0",mtx_bucket="connector_claims"}', values: '3x30' },
      ],
      atMinutes: 20,
    },
  },
  {
    alert: 'StorePrimaryUnreachable',
    expr: 'max by (job, instance) (mtx_store_primary_reachable) == 0',
    for: '2m',
    severity: 'page',
    summary: 'A service has had no writable MongoDB (FerretDB) server for 2 minutes',
    description:
      "The service's driver lost every writable server: its writes fail (batches, credits, renewals wait), while reads from a secondary may still answer.",
    fires: {
      series: [{ series: 'mtx_store_primary_reachable{job="wallet",instance="wallet-0"}', values: '1x5 0x10' }],
      labels: { job: 'wallet', instance: 'wallet-0' },
      atMinutes: 10,
    },
    quiet: {
      series: [{ series: 'mtx_store_primary_reachable{job="wallet",instance="wallet-0"}', values: '1x5 0 1x10' }],
      atMinutes: 10,
    },
  },
  {
    alert: 'PostbackSignatureFailures',
    expr: 'sum by (mtx_provider) (rate(mtx_payments_postback_signature_failures_total[10m])) > 0.05 and sum by (mtx_provider) (rate(mtx_payments_postback_signature_failures_total[10m])) > 0.1 * sum by (mtx_provider) (rate(mtx_payments_postbacks_total[10m]))',
    for: '10m',
    severity: 'page',
    summary: "A provider's postbacks are refused for their signature",
    description:
      "More than 3 a minute, and more than a tenth of the provider's postbacks, fail the signature check: the callback secret is out of step (payments are not credited) or someone is forging postbacks.",
    fires: {
      series: [
        { series: 'mtx_payments_postback_signature_failures_total{mtx_provider="nowpayments"}', values: '0+10x40' },
        { series: 'mtx_payments_postbacks_total{mtx_provider="nowpayments",mtx_outcome="unauthenticated"}', values: '0+10x40' },
        { series: 'mtx_payments_postbacks_total{mtx_provider="nowpayments",mtx_outcome="credited"}', values: '0+5x40' },
      ],
      labels: { mtx_provider: 'nowpayments' },
      atMinutes: 30,
    },
    quiet: {
      series: [
        // A stray bad postback or two among many good ones: a probe, not an incident.
        { series: 'mtx_payments_postback_signature_failures_total{mtx_provider="nowpayments"}', values: '0+1x40' },
        { series: 'mtx_payments_postbacks_total{mtx_provider="nowpayments",mtx_outcome="credited"}', values: '0+200x40' },
      ],
      atMinutes: 30,
    },
  },
  {
    alert: 'SchedulerLeaseStalled',
    expr: 'time() - max(mtx_billing_scheduler_lease_completed) > 300',
    for: '5m',
    severity: 'page',
    summary: 'No billing replica has finished a scheduler tick holding the lease for over 5 minutes',
    description:
      'Renewals, releases and past-due retries are not being worked: every replica is stopped, stuck in a tick, or cannot take the lease.',
    fires: {
      // Ticks every minute (the gauge holds the unix time of the last), then none after minute 5.
      series: [{ series: 'mtx_billing_scheduler_lease_completed{instance="billing-0"}', values: '0+60x5 300x30' }],
      labels: {},
      atMinutes: 20,
    },
    quiet: {
      series: [{ series: 'mtx_billing_scheduler_lease_completed{instance="billing-0"}', values: '0+60x30' }],
      atMinutes: 20,
    },
  },
  {
    alert: 'UnknownLegsUnreconciled',
    expr: 'max(mtx_execution_unsettled_oldest_age) > 1800000',
    for: '5m',
    severity: 'page',
    summary: 'A leg has stayed `unknown` for over 30 minutes',
    description:
      'Reconciliation cannot find the outcome of a leg at the broker (the terminal is gone, or the lookup fails): the customer does not know whether a position was opened.',
    fires: {
      series: [{ series: 'mtx_execution_unsettled_oldest_age{instance="execution-0"}', values: '0+120000x40' }],
      labels: {},
      atMinutes: 30,
    },
    quiet: {
      series: [{ series: 'mtx_execution_unsettled_oldest_age{instance="execution-0"}', values: '0+120000x5 0x35' }],
      atMinutes: 30,
    },
  },
  {
    alert: 'WebhookEndpointBacklog',
    expr: 'max by (mtx_endpoint_id) (mtx_notifications_endpoint_oldest_age) > 3600000',
    for: '15m',
    severity: 'ticket',
    summary: 'A webhook endpoint has not taken its next event for over an hour',
    description:
      "The endpoint keeps failing (it is retried with backoff and disabled after WEBHOOK_RETRY_FOR_MS): usually the customer's receiver, sometimes our signing or network.",
    fires: {
      series: [{ series: 'mtx_notifications_endpoint_oldest_age{mtx_endpoint_id="we_1"}', values: '0+120000x60' }],
      labels: { mtx_endpoint_id: 'we_1' },
      atMinutes: 50,
    },
    quiet: {
      series: [{ series: 'mtx_notifications_endpoint_oldest_age{mtx_endpoint_id="we_1"}', values: '0+1000x10 0x50' }],
      atMinutes: 50,
    },
  },
];
