import { createCounter, createGauge, createUpDownCounter, instruments } from '@mtx/shared/instruments';

/** What an SRE reads of a connector replica: the requests it takes, the terminals it holds, the claims' copies. */
export const connectorMetrics = {
  requests: createCounter(instruments.connectorRequests),
  terminalsAttached: createUpDownCounter(instruments.connectorTerminalsAttached),
  claimsReplicas: createGauge(instruments.connectorClaimsReplicas),
  claimsReplicasSetting: createGauge(instruments.connectorClaimsReplicasSetting),
};
