import { Type, type Static } from '@sinclair/typebox';
import { baseConfigProperties, metricsPortProperty, grpcAddressDefaults, loadConfig } from '@mtx/shared/config';

export function connectorConfigSchema(platform: 'mt4' | 'mt5') {
  return Type.Object({
    ...baseConfigProperties,
    HEALTH_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: platform === 'mt4' ? 50070 : 50071 }),
    /** The operations listener: metrics, never published (see metricsPortProperty). */
    METRICS_PORT: metricsPortProperty(platform === 'mt4' ? 9470 : 9471),
    HOST: Type.String({ default: '0.0.0.0' }),
    BROKER_SIM_GRPC_URL: Type.String({ default: grpcAddressDefaults.BROKER_SIM_GRPC_URL }),
    /** First token of the terminal subjects (`<root>.<platform>.<account_id>.<op>`); tests use their own. */
    TERMINAL_SUBJECT_ROOT: Type.String({ default: 'term', pattern: '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$' }),
    /** NATS queue group; replicas with the same group share the load. */
    CONNECTOR_QUEUE_GROUP: Type.String({ default: `connector-${platform}` }),
    /** JetStream key-value bucket holding client-id claims (shared by every connector replica). */
    CONNECTOR_CLAIMS_BUCKET: Type.String({ default: 'connector_claims', pattern: '^[A-Za-z0-9_-]+$' }),
    CONNECTOR_CLAIM_TTL_MS: Type.Integer({ minimum: 60_000, default: 24 * 60 * 60_000 }),
    /**
     * How long a message waits for the claims bucket when JetStream cannot take the claim yet (a stream electing
     * a new leader after its server died takes 4 to 9 s); capped by the request's deadline less 1 s for the send.
     */
    CONNECTOR_CLAIM_WAIT_MS: Type.Integer({ minimum: 0, default: 4_000 }),
    /** Copies of the claims bucket: 1 on a single nats-server, 3 on a 3-node cluster (no claim lost with a node). */
    CONNECTOR_CLAIMS_REPLICAS: Type.Integer({ minimum: 1, maximum: 5, default: 1 }),
    /** Deadline of one trade call to the trade server (a slow broker may answer after the requester gave up). */
    BROKER_CALL_DEADLINE_MS: Type.Integer({ minimum: 100, default: 30_000 }),
    BROKER_LOGIN_DEADLINE_MS: Type.Integer({ minimum: 100, default: 5_000 }),
    /** Deadline of reads (lists, lookups, symbol details, pings). */
    BROKER_READ_DEADLINE_MS: Type.Integer({ minimum: 100, default: 5_000 }),
    /** Trade-server sessions (logins) kept per connector replica; the least recently used is dropped past it. */
    CONNECTOR_SESSIONS_MAX: Type.Integer({ minimum: 1, default: 10_000 }),
    /**
     * A session (login) unused this long is logged out, so a replica holds sessions only for the accounts that
     * trade; the account's next request logs in again.
     */
    CONNECTOR_SESSION_IDLE_MS: Type.Integer({ minimum: 100, default: 900_000 }),
    /** `Terminal` streams per trade-server address that the sessions' calls are spread over (multiplexed by session). */
    CONNECTOR_TERMINAL_STREAMS: Type.Integer({ minimum: 1, maximum: 64, default: 1 }),
    /** A terminal stream unused this long is closed; the next call opens a new one. */
    CONNECTOR_TERMINAL_IDLE_MS: Type.Integer({ minimum: 100, default: 300_000 }),
    /**
     * Address the terminal listener binds (EAs dial in, docs/terminal-bridge.md). Any address other than loopback
     * (`127.0.0.1`, `::1`, `localhost`) needs TERMINAL_TLS_KEY_FILE and TERMINAL_TLS_CERT_FILE.
     */
    TERMINAL_LISTEN_HOST: Type.String({ default: '127.0.0.1' }),
    /** Port of the terminal listener. */
    TERMINAL_LISTEN_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: platform === 'mt4' ? 50080 : 50081 }),
    /** PEM private key of the terminal listener's TLS certificate; empty: plain TCP, loopback only. */
    TERMINAL_TLS_KEY_FILE: Type.String({ default: '' }),
    /** PEM certificate (chain) the EAs verify against the host name they dial; empty: plain TCP, loopback only. */
    TERMINAL_TLS_CERT_FILE: Type.String({ default: '' }),
    /** Terminal connections held at once; the listener refuses more. */
    TERMINAL_CONNECTIONS_MAX: Type.Integer({ minimum: 1, default: 10_000 }),
    /** A connection that has not delivered its `hello` this long after the accept (TLS included) is closed. */
    TERMINAL_HELLO_DEADLINE_MS: Type.Integer({ minimum: 100, default: 10_000 }),
    /** `hb_ms` in `welcome`: either side sends a heartbeat after this long without sending anything. */
    TERMINAL_HEARTBEAT_MS: Type.Integer({ minimum: 1_000, maximum: 60_000, default: 10_000 }),
    /** `idle_ms` in `welcome`: a terminal silent this long gets `bye reason=idle` and is closed. */
    TERMINAL_IDLE_MS: Type.Integer({ minimum: 3_000, maximum: 180_000, default: 30_000 }),
    /** `max_inflight` in `welcome`: unanswered requests per terminal; further calls wait in the queue below. */
    TERMINAL_INFLIGHT_MAX: Type.Integer({ minimum: 1, maximum: 64, default: 8 }),
    /** Calls waiting per terminal for an in-flight slot; beyond it a call fails `unavailable` and sends nothing. */
    TERMINAL_QUEUE_MAX: Type.Integer({ minimum: 0, default: 64 }),
    /** Largest frame accepted from a terminal, LF included; a longer line closes that connection. */
    TERMINAL_FRAME_MAX_BYTES: Type.Integer({ minimum: 1_024, maximum: 1_048_576, default: 1_048_576 }),
    /** Deadline of the terminal directory's lookup during a hello; past it the terminal is refused `unavailable`. */
    TERMINAL_LOOKUP_DEADLINE_MS: Type.Integer({ minimum: 100, default: 5_000 }),
    /** One-way trip allowed for a request: a trade request's `ttl_ms` is its time left less this. */
    TERMINAL_LATENCY_ALLOWANCE_MS: Type.Integer({ minimum: 0, default: 250 }),
    /** Requests handled at once; beyond it the connector answers 503 at once and sends nothing. */
    CONNECTOR_CONCURRENCY_MAX: Type.Integer({ minimum: 1, default: 2_000 }),
    /** Closes per account and request; matches beyond it come back skipped. */
    CONNECTOR_CLOSES_PER_ACCOUNT_MAX: Type.Integer({ minimum: 1, default: 20 }),
    /** Deviation allowed when a market order names a price but no slippage. */
    CONNECTOR_DEFAULT_SLIPPAGE_POINTS: Type.Integer({ minimum: 0, default: 20 }),
  });
}

export type ConnectorConfig = Static<ReturnType<typeof connectorConfigSchema>>;

export function loadConnectorConfig(platform: 'mt4' | 'mt5', environment: NodeJS.ProcessEnv = process.env): ConnectorConfig {
  return loadConfig(connectorConfigSchema(platform), environment);
}
