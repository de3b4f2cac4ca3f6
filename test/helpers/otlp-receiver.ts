/**
 * A real OTLP/HTTP trace receiver for tests: a plain node:http server taking
 * `POST /v1/traces` with JSON bodies (what the bridge's OTLP/HTTP JSON exporter
 * sends; a protobuf body is refused with 415 and counted, so a regression to
 * protobuf fails the tests), decoding the OTLP JSON into flat spans. Every raw
 * body is kept, for "this canary appears nowhere in what was exported".
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  status: number;
  /** Start and end, nanoseconds since the epoch. */
  start: bigint;
  end: bigint;
}

export const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;

export interface OtlpReceiver {
  /** The value for OTEL_EXPORTER_OTLP_ENDPOINT. */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Every export body, as received. */
  bodies: string[];
  /** Requests that were not JSON exports. */
  refused: number;
  /** Resolves once `predicate` holds for the spans received, or rejects after `timeoutMs`. */
  waitFor(predicate: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number, what?: string): Promise<void>;
  close(): Promise<void>;
}

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type OtlpAttribute = { key: string; value: OtlpValue };

function attributes(list: OtlpAttribute[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of list ?? []) out[key] = value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : value.boolValue ?? value.doubleValue);
  return out;
}

function decode(body: string): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  const parsed = JSON.parse(body) as { resourceSpans?: { resource?: { attributes?: OtlpAttribute[] }; scopeSpans?: { spans?: Record<string, unknown>[] }[] }[] };
  for (const rs of parsed.resourceSpans ?? []) {
    const service = String(attributes(rs.resource?.attributes)['service.name'] ?? '');
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        spans.push({
          service,
          traceId: s.traceId as string,
          spanId: s.spanId as string,
          parentSpanId: (s.parentSpanId as string | undefined) || undefined,
          name: s.name as string,
          kind: s.kind as number,
          attributes: attributes(s.attributes as OtlpAttribute[]),
          events: ((s.events as { name: string; attributes?: OtlpAttribute[] }[] | undefined) ?? []).map((e) => ({ name: e.name, attributes: attributes(e.attributes) })),
          status: ((s.status as { code?: number } | undefined)?.code ?? 0),
          start: BigInt(s.startTimeUnixNano as string),
          end: BigInt(s.endTimeUnixNano as string),
        });
      }
    }
  }
  return spans;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const receiver = { refused: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !req.headers['content-type']?.startsWith('application/json')) {
        receiver.refused++;
        return void res.writeHead(415).end();
      }
      bodies.push(body);
      spans.push(...decode(body));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    get refused() {
      return receiver.refused;
    },
    async waitFor(predicate, timeoutMs = 20_000, what = 'spans') {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(spans)) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; received:\n${spans.map((s) => `${s.service} ${s.name} ${s.traceId}/${s.spanId}<-${s.parentSpanId}`).join('\n')}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Tracing on, exporting to `receiver` every 100 ms. */
export function tracingEnv(receiver: OtlpReceiver, serviceName?: string): Record<string, string> {
  return { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '100', ...(serviceName ? { OTEL_SERVICE_NAME: serviceName } : {}) };
}

export { startCli, type CliProcess } from './cli-process.js';
