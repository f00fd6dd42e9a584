import {
  metrics,
  type Counter,
  type Gauge,
  type Histogram,
  type ObservableCounter,
  type ObservableGauge,
  type UpDownCounter,
} from '@opentelemetry/api';

/**
 * Every metric instrument the services export, in one place: the services create their instruments from these
 * entries (never from a name written elsewhere), and the alert rules, the SLO expressions and the dashboards in
 * deploy/ are checked against the Prometheus names these entries export (test/observability). The Prometheus
 * name is the OTel name with dots as underscores, `_total` after a counter's, and `_bucket`, `_sum` and `_count`
 * after a histogram's (the exporter adds no unit suffix).
 */
export interface InstrumentSpec {
  /** The meter (instrumentation scope) that creates it: the service, or `shared` for what every service has. */
  readonly meter: string;
  readonly name: string;
  readonly kind: 'counter' | 'up-down-counter' | 'histogram' | 'gauge' | 'observable-counter' | 'observable-gauge';
  readonly unit?: string;
  readonly description: string;
  readonly buckets?: readonly number[];
}

/** Bounds for request and hop latencies (milliseconds), from half a millisecond to 10 s. */
export const latencyBucketsMs = [0.5, 1, 2, 3, 5, 7.5, 10, 15, 25, 50, 75, 100, 250, 500, 1000, 2500, 5000, 10000];

/** Bounds for work that is late by seconds to hours: credits, webhooks, renewals, reconciliation (milliseconds). */
export const lagBucketsMs = [100, 250, 500, 1_000, 2_500, 5_000, 15_000, 30_000, 60_000, 120_000, 300_000, 900_000, 3_600_000, 21_600_000];

export const instruments = {
  storePrimaryReachable: {
    meter: 'shared',
    name: 'mtx.store.primary.reachable',
    kind: 'observable-gauge',
    description: "1 while the store's driver knows a writable server (MongoDB's primary, FerretDB), 0 once its monitor lost it",
  },
  gatewayRequestDuration: {
    meter: 'gateway',
    name: 'mtx.gateway.request.duration',
    kind: 'histogram',
    unit: 'ms',
    description: 'REST request duration by route, method and status',
    buckets: latencyBucketsMs,
  },
  gatewayReadModelReads: {
    meter: 'gateway',
    name: 'mtx.gateway.read_model.reads',
    kind: 'observable-counter',
    description: 'Reads of a read model by outcome (hit, load, joined)',
  },
  gatewayReadModelInvalidations: {
    meter: 'gateway',
    name: 'mtx.gateway.read_model.invalidations',
    kind: 'observable-counter',
    description: 'Customers invalidated in a read model (announcements and own writes)',
  },
  gatewayReadModelEntries: {
    meter: 'gateway',
    name: 'mtx.gateway.read_model.entries',
    kind: 'observable-gauge',
    description: 'Answers a read model holds',
  },
  gatewayAuthLookups: {
    meter: 'gateway',
    name: 'mtx.gateway.auth.lookups',
    kind: 'observable-counter',
    description: 'API keys looked up in the store (key-cache misses); a flood of made-up keys must not move it',
  },
  executionFanoutDuration: {
    meter: 'execution',
    name: 'mtx.execution.fanout.duration',
    kind: 'histogram',
    unit: 'ms',
    description: 'Time from publishing a terminal request to its answer (or deadline), per platform and operation',
    buckets: latencyBucketsMs,
  },
  executionLegOutcomes: {
    meter: 'execution',
    name: 'mtx.execution.leg.outcomes',
    kind: 'counter',
    description:
      'Order legs and close tickets by final status at response time (filled, placed, rejected, unavailable, unknown, closed, skipped, failed)',
  },
  executionNatsFailures: {
    meter: 'execution',
    name: 'mtx.execution.nats.failures',
    kind: 'counter',
    description: 'Terminal requests that got no answer: no_responders (no connector subscribed) or timeout (no reply by the deadline)',
  },
  executionAccountsUnreachable: {
    meter: 'execution',
    name: 'mtx.execution.accounts.unreachable',
    kind: 'counter',
    description: "Terminal requests answered no_responders, by account: no connector serves the account's terminal",
  },
  executionReconcileDuration: {
    meter: 'execution',
    name: 'mtx.execution.reconcile.duration',
    kind: 'histogram',
    unit: 'ms',
    description: 'Time from a leg (or close account) left unknown to its outcome found at the broker by reconciliation',
    buckets: lagBucketsMs,
  },
  executionReconcileAbandoned: {
    meter: 'execution',
    name: 'mtx.execution.reconcile.abandoned',
    kind: 'counter',
    description: 'Unknown legs given up after RECONCILE_GIVE_UP_AFTER_MS: an operator must settle them with the broker by hand',
  },
  executionUnsettledOldestAge: {
    meter: 'execution',
    name: 'mtx.execution.unsettled.oldest_age',
    kind: 'gauge',
    unit: 'ms',
    description: 'Age of the oldest leg still unknown at the last reconciliation pass; 0 when none',
  },
  connectorRequests: {
    meter: 'connector',
    name: 'mtx.connector.requests',
    kind: 'counter',
    description: "Requests this replica took, per platform and operation (only the replica holding an account's terminal takes them)",
  },
  connectorTerminalsAttached: {
    meter: 'connector',
    name: 'mtx.connector.terminals.attached',
    kind: 'up-down-counter',
    description: 'Terminals attached to this replica now, whose accounts it serves',
  },
  connectorClaimsReplicas: {
    meter: 'connector',
    name: 'mtx.connector.claims.replicas',
    kind: 'gauge',
    description: "Copies of the claims bucket that are current (its stream's leader and the followers keeping up), at the last check",
  },
  connectorClaimsReplicasSetting: {
    meter: 'connector',
    name: 'mtx.connector.claims.replicas_setting',
    kind: 'gauge',
    description: 'CONNECTOR_CLAIMS_REPLICAS: the copies the claims bucket should have',
  },
  billingSchedulerLag: {
    meter: 'billing',
    name: 'mtx.billing.scheduler.lag',
    kind: 'histogram',
    unit: 'ms',
    description: 'Time between an item falling due (renewal, release, retry) and the scheduler picking it up',
    buckets: [100, 1_000, 5_000, 15_000, 30_000, 60_000, 120_000, 300_000, 900_000, 3_600_000],
  },
  billingSchedulerLeaseCompleted: {
    meter: 'billing',
    name: 'mtx.billing.scheduler.lease.completed',
    kind: 'gauge',
    unit: 's',
    description: 'Unix time (seconds) at which this replica last finished a tick holding the lease; stale everywhere: no one renews',
  },
  billingRenewals: {
    meter: 'billing',
    name: 'mtx.billing.renewals',
    kind: 'counter',
    description: 'Items the scheduler worked, by outcome (renewed, released, past_due, suspended, recovered, deferred, unchanged)',
  },
  notificationsDeliveries: {
    meter: 'notifications',
    name: 'mtx.notifications.deliveries',
    kind: 'counter',
    description: 'Webhook deliveries attempted, by outcome (delivered, failed) and event type',
  },
  notificationsDeliveryDuration: {
    meter: 'notifications',
    name: 'mtx.notifications.delivery.duration',
    kind: 'histogram',
    unit: 'ms',
    description: "Time a customer's endpoint took to answer a delivery (or to fail it)",
    buckets: [5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000],
  },
  notificationsDeliveryLag: {
    meter: 'notifications',
    name: 'mtx.notifications.delivery.lag',
    kind: 'histogram',
    unit: 'ms',
    description: 'Time from an event being recorded to its delivery being answered 2xx, retries included',
    buckets: lagBucketsMs,
  },
  notificationsEndpointsDisabled: {
    meter: 'notifications',
    name: 'mtx.notifications.endpoints.disabled',
    kind: 'counter',
    description: 'Endpoints disabled after failing for the whole retry period',
  },
  notificationsEndpointBacklog: {
    meter: 'notifications',
    name: 'mtx.notifications.endpoint.backlog',
    kind: 'observable-gauge',
    description: "Events recorded for an endpoint's customer and not delivered to it yet, as the delivering leader knows them",
  },
  notificationsEndpointOldestAge: {
    meter: 'notifications',
    name: 'mtx.notifications.endpoint.oldest_age',
    kind: 'observable-gauge',
    unit: 'ms',
    description: 'Age of the event an endpoint is waiting to take (retrying it); 0 when it is caught up',
  },
  paymentsInboxOldestAge: {
    meter: 'payments',
    name: 'mtx.payments.inbox.oldest_age',
    kind: 'observable-gauge',
    unit: 'ms',
    description: 'Age of the oldest postback recorded in the inbox and not credited yet, at the last check; 0 when none',
  },
  paymentsCreditingQueued: {
    meter: 'payments',
    name: 'mtx.payments.crediting.queued',
    kind: 'observable-gauge',
    description: "Inbox records waiting in this replica's crediting worker",
  },
  paymentsCreditingRecords: {
    meter: 'payments',
    name: 'mtx.payments.crediting.records',
    kind: 'observable-counter',
    description: 'Inbox records by outcome: credited, released (handed back to the inbox for redelivery)',
  },
  paymentsCreditLag: {
    meter: 'payments',
    name: 'mtx.payments.credit.lag',
    kind: 'histogram',
    unit: 'ms',
    description: "Time from a postback's acknowledgement (its inbox record) to its credit in the wallet",
    buckets: lagBucketsMs,
  },
  paymentsPostbacks: {
    meter: 'payments',
    name: 'mtx.payments.postbacks',
    kind: 'counter',
    description: 'Provider postbacks by provider and outcome',
  },
  paymentsSignatureFailures: {
    meter: 'payments',
    name: 'mtx.payments.postback.signature_failures',
    kind: 'counter',
    description:
      'Postbacks refused because the signature was missing, wrong or outside the replay window (an attack, or a secret out of step)',
  },
  paymentsProviderFailures: {
    meter: 'payments',
    name: 'mtx.payments.provider_failures',
    kind: 'counter',
    description:
      'Payments the provider reported failed, expired or refunded, by provider and its status: nothing is debited automatically, an operator looks',
  },
  walletMovements: {
    meter: 'wallet',
    name: 'mtx.wallet.movements',
    kind: 'counter',
    description: 'Credits and debits by kind, reason and outcome (applied, replay, refused, failed)',
  },
  walletMovementAmount: {
    meter: 'wallet',
    name: 'mtx.wallet.movement.amount',
    kind: 'counter',
    unit: 'EUR cents',
    description: 'Money moved by applied credits and debits, by kind and reason',
  },
} as const satisfies Record<string, InstrumentSpec>;

type Kind<K extends InstrumentSpec['kind']> = InstrumentSpec & { readonly kind: K };

function options(spec: InstrumentSpec) {
  return {
    description: spec.description,
    ...(spec.unit ? { unit: spec.unit } : {}),
    ...(spec.buckets ? { advice: { explicitBucketBoundaries: [...spec.buckets] } } : {}),
  };
}

function meterOf(spec: InstrumentSpec) {
  return metrics.getMeter(spec.meter);
}

export function createCounter(spec: Kind<'counter'>): Counter {
  return meterOf(spec).createCounter(spec.name, options(spec));
}

export function createUpDownCounter(spec: Kind<'up-down-counter'>): UpDownCounter {
  return meterOf(spec).createUpDownCounter(spec.name, options(spec));
}

export function createHistogram(spec: Kind<'histogram'>): Histogram {
  return meterOf(spec).createHistogram(spec.name, options(spec));
}

export function createGauge(spec: Kind<'gauge'>): Gauge {
  return meterOf(spec).createGauge(spec.name, options(spec));
}

export function createObservableCounter(spec: Kind<'observable-counter'>): ObservableCounter {
  return meterOf(spec).createObservableCounter(spec.name, options(spec));
}

export function createObservableGauge(spec: Kind<'observable-gauge'>): ObservableGauge {
  return meterOf(spec).createObservableGauge(spec.name, options(spec));
}

/** Registers one callback for several observable instruments of one meter (one pass over the state per scrape). */
export function observeTogether(
  meterName: string,
  callback: Parameters<ReturnType<typeof metrics.getMeter>['addBatchObservableCallback']>[0],
  observables: Array<ObservableCounter | ObservableGauge>,
): void {
  metrics.getMeter(meterName).addBatchObservableCallback(callback, observables);
}
