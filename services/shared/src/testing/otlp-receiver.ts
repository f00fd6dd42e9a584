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

function valueOf(value: AnyValue | undefined): unknown {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return value.arrayValue.values.map(valueOf);
  return undefined;
}

function attributesOf(list: Array<{ key: string; value: AnyValue }> | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((attribute) => [attribute.key, valueOf(attribute.value)]));
}

/** OTLP/JSON encodes ids as hex strings; some exporters send base64. */
function hexId(id: string | undefined): string {
  if (!id) return '';
  if (/^[0-9a-f]+$/i.test(id)) return id.toLowerCase();
  return Buffer.from(id, 'base64').toString('hex');
}

/**
 * An in-process OTLP/HTTP receiver (JSON encoding: services run with OTEL_EXPORTER_OTLP_PROTOCOL=http/json).
 * It keeps every span and metric it is sent, so tests can assert on whole traces across processes.
 */
export async function startOtlpReceiver(): Promise<{ url: string; spans: ReceivedSpan[]; metrics: ReceivedMetric[]; rawBodies: string[]; close(): Promise<void> }> {
  const spans: ReceivedSpan[] = [];
  const metrics: ReceivedMetric[] = [];
  const rawBodies: string[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
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
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    metrics,
    rawBodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
