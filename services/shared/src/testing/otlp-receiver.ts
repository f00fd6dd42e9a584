import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';

/** One span as the OTLP/HTTP JSON encoding carries it, flattened with its service name. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  status: { code?: number; message?: string };
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  /** Spans this one is linked to (a batch span's items), by trace and span id. */
  links: Array<{ traceId: string; spanId: string }>;
  /** Its events (an exception recorded on it), by name, with their attributes. */
  events: Array<{ name: string; timeUnixNano: string; attributes: Record<string, unknown> }>;
}

export interface ReceivedMetric {
  service: string;
  name: string;
  raw: unknown;
}

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values: AnyValue[] };
}

function attributeValue(value: AnyValue | undefined): unknown {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return value.arrayValue.values.map(attributeValue);
  return undefined;
}

function attributesOf(list: Array<{ key: string; value: AnyValue }> | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((attribute) => [attribute.key, attributeValue(attribute.value)]));
}

/** OTLP/JSON encodes ids as hex strings; some exporters send base64. */
function hexId(id: string | undefined): string {
  if (!id) return '';
  if (/^[0-9a-f]+$/i.test(id)) return id.toLowerCase();
  return Buffer.from(id, 'base64').toString('hex');
}

/** What a receiver was sent, per signal: requests and body bytes as they came over the wire. */
export interface ReceivedTraffic {
  requests: number;
  bytes: number;
}

export interface OtlpReceiver {
  url: string;
  /** Parsed spans and metrics (always empty in discard mode). */
  spans: ReceivedSpan[];
  metrics: ReceivedMetric[];
  rawBodies: string[];
  /** Counted in both modes, keyed by signal: traces, metrics, logs. */
  traffic: Record<'traces' | 'metrics' | 'logs', ReceivedTraffic>;
  close(): Promise<void>;
}

function signalOf(url: string | undefined): 'traces' | 'metrics' | 'logs' {
  if (url?.startsWith('/v1/metrics')) return 'metrics';
  if (url?.startsWith('/v1/logs')) return 'logs';
  return 'traces';
}

/**
 * An in-process OTLP/HTTP receiver. By default it keeps every span and metric it is sent (JSON encoding:
 * services run with OTEL_EXPORTER_OTLP_PROTOCOL=http/json), so tests can assert on whole traces across
 * processes. With `discard: true` it plays the remote collector of a benchmark: it reads each body, counts its
 * requests and bytes, answers 200 and keeps and parses nothing, so the benchmark process does not pay, on the
 * measured machine, for work production does elsewhere. Either encoding is accepted.
 */
export async function startOtlpReceiver(options: { discard?: boolean } = {}): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const metrics: ReceivedMetric[] = [];
  const rawBodies: string[] = [];
  const traffic: OtlpReceiver['traffic'] = {
    traces: { requests: 0, bytes: 0 },
    metrics: { requests: 0, bytes: 0 },
    logs: { requests: 0, bytes: 0 },
  };
  const server = http.createServer((request, response) => {
    const counted = traffic[signalOf(request.url)];
    counted.requests += 1;
    // An empty body is a valid answer in both encodings (an ExportServiceResponse with no partial success).
    const answer = () => {
      const json = !String(request.headers['content-type'] ?? '').includes('protobuf');
      response.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
      response.end(json ? '{}' : undefined);
    };
    if (options.discard) {
      request.on('data', (chunk: Buffer) => (counted.bytes += chunk.length));
      request.on('end', answer);
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => {
      counted.bytes += chunk.length;
      chunks.push(chunk);
    });
    request.on('end', () => {
      let body = Buffer.concat(chunks);
      if (request.headers['content-encoding'] === 'gzip') body = zlib.gunzipSync(body);
      const text = body.toString('utf8');
      rawBodies.push(text);
      try {
        const payload = JSON.parse(text) as Record<string, unknown>;
        if (request.url?.startsWith('/v1/traces')) {
          for (const resourceSpans of (payload.resourceSpans as Array<Record<string, any>>) ?? []) {
            const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? 'unknown');
            for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
              for (const span of scopeSpans.spans ?? []) {
                spans.push({
                  service,
                  traceId: hexId(span.traceId),
                  spanId: hexId(span.spanId),
                  parentSpanId: hexId(span.parentSpanId),
                  name: span.name,
                  kind: span.kind,
                  attributes: attributesOf(span.attributes),
                  status: span.status ?? {},
                  startTimeUnixNano: String(span.startTimeUnixNano),
                  endTimeUnixNano: String(span.endTimeUnixNano),
                  links: ((span.links as Array<Record<string, string>> | undefined) ?? []).map((link) => ({
                    traceId: hexId(link.traceId),
                    spanId: hexId(link.spanId),
                  })),
                  events: ((span.events as Array<Record<string, any>> | undefined) ?? []).map((event) => ({
                    name: String(event.name),
                    timeUnixNano: String(event.timeUnixNano),
                    attributes: attributesOf(event.attributes),
                  })),
                });
              }
            }
          }
        } else if (request.url?.startsWith('/v1/metrics')) {
          for (const resourceMetrics of (payload.resourceMetrics as Array<Record<string, any>>) ?? []) {
            const service = String(attributesOf(resourceMetrics.resource?.attributes)['service.name'] ?? 'unknown');
            for (const scopeMetrics of resourceMetrics.scopeMetrics ?? []) {
              for (const metric of scopeMetrics.metrics ?? []) metrics.push({ service, name: metric.name, raw: metric });
            }
          }
        }
      } catch {
        // Protobuf bodies are kept raw only; the tests configure JSON.
      }
      answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    metrics,
    rawBodies,
    traffic,
    close: () =>
      new Promise<void>((resolve) => {
        // Exporters keep their connections alive; without this, close would wait for them to time out.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
