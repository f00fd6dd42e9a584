import { meter } from '@mtx/shared/telemetry';

/** What an SRE reads of a connector replica: the requests it takes and the terminals it holds. */
const connectorMeter = meter('connector');

export const connectorMetrics = {
  requests: connectorMeter.createCounter('mtx.connector.requests', {
    description: "Requests this replica took, per platform and operation (only the replica holding an account's terminal takes them)",
  }),
  terminalsAttached: connectorMeter.createUpDownCounter('mtx.connector.terminals.attached', {
    description: 'Terminals attached to this replica now, whose accounts it serves',
  }),
};
