/**
 * A real OTLP trace receiver for tests, for each of the three OTLP protocols:
 * - `http/protobuf` and `http/json`: a plain node:http server taking
 *   `POST /v1/traces` with `application/x-protobuf` or `application/json`
 *   bodies (both accepted and counted by kind, so a test can check which one
 *   the exporter sent; anything else is refused with 415 and counted);
 * - `grpc`: a real gRPC server (@grpc/grpc-js) serving
 *   `opentelemetry.proto.collector.trace.v1.TraceService/Export`.
 * Protobuf bodies are decoded by protobufjs with the OTLP trace messages
 * (test/helpers/otlp-proto/), JSON ones as OTLP/JSON, both into the
 * same flat spans. Every raw body is kept, for "this canary appears nowhere
 * in what was exported".
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { Server as GrpcServer, ServerCredentials, type handleUnaryCall, type ServiceDefinition } from '@grpc/grpc-js';
import protobuf from 'protobufjs';

export type OtlpProtocol = 'http/protobuf' | 'http/json' | 'grpc';
export const OTLP_PROTOCOLS: readonly OtlpProtocol[] = ['http/protobuf', 'http/json', 'grpc'];

export interface ReceivedSpan {
  service: string;
  /** The resource's attributes and the instrumentation scope the span came with. */
  resource: Record<string, unknown>;
  scope: { name: string; version: string | undefined };
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
  /** The protocol this receiver serves: what tracingEnv() asks the exporter for. */
  protocol: OtlpProtocol;
  /** The value for OTEL_EXPORTER_OTLP_ENDPOINT. */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Every export body, as received (protobuf ones as latin1 text: their strings appear verbatim). */
  bodies: string[];
  /** Exports received, by the protocol they came in. */
  received: Record<OtlpProtocol, number>;
  /** HTTP requests that were not OTLP trace exports. */
  refused: number;
  /** Resolves once `predicate` holds for the spans received, or rejects after `timeoutMs`. */
  waitFor(predicate: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number, what?: string): Promise<void>;
  close(): Promise<void>;
}

const root = protobuf.loadSync(fileURLToPath(new URL('otlp-proto/trace_service.proto', import.meta.url)));
const ExportRequest = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');

/** OTLP/JSON's shape, which protobuf messages are brought to (ids are hex in JSON, base64 from protobuf here). */
type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type OtlpAttribute = { key: string; value?: OtlpValue };
type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: OtlpAttribute[];
  events?: { name: string; attributes?: OtlpAttribute[] }[];
  status?: { code?: number };
  startTimeUnixNano: string;
  endTimeUnixNano: string;
};
type OtlpRequest = {
  resourceSpans?: { resource?: { attributes?: OtlpAttribute[] }; scopeSpans?: { scope?: { name?: string; version?: string }; spans?: OtlpSpan[] }[] }[];
};

function attributes(list: OtlpAttribute[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value = {} } of list ?? [])
    out[key] = value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue));
  return out;
}

function flatten(request: OtlpRequest, hexId: (id: string) => string): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const rs of request.resourceSpans ?? []) {
    const resource = attributes(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      const scope = { name: ss.scope?.name ?? '', version: ss.scope?.version || undefined };
      for (const s of ss.spans ?? []) {
        spans.push({
          service: String(resource['service.name'] ?? ''),
          resource,
          scope,
          traceId: hexId(s.traceId),
          spanId: hexId(s.spanId),
          parentSpanId: s.parentSpanId ? hexId(s.parentSpanId) : undefined,
          name: s.name,
          kind: s.kind ?? 0,
          attributes: attributes(s.attributes),
          events: (s.events ?? []).map((e) => ({ name: e.name, attributes: attributes(e.attributes) })),
          status: s.status?.code ?? 0,
          start: BigInt(s.startTimeUnixNano),
          end: BigInt(s.endTimeUnixNano),
        });
      }
    }
  }
  return spans;
}

export function decodeJson(body: Buffer): ReceivedSpan[] {
  return flatten(JSON.parse(body.toString('utf8')) as OtlpRequest, (id) => id);
}

export function decodeProtobuf(body: Buffer): ReceivedSpan[] {
  const message = ExportRequest.decode(body);
  const request = ExportRequest.toObject(message, { longs: String, enums: Number, bytes: String }) as OtlpRequest;
  return flatten(request, (id) => Buffer.from(id, 'base64').toString('hex'));
}

/** The method the OTLP gRPC exporter calls; bodies pass through as bytes and are decoded by decodeProtobuf. */
const TRACE_SERVICE: ServiceDefinition = {
  Export: {
    path: '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
    requestStream: false,
    responseStream: false,
    requestSerialize: (b: Buffer) => b,
    requestDeserialize: (b: Buffer) => b,
    responseSerialize: (b: Buffer) => b,
    responseDeserialize: (b: Buffer) => b,
    originalName: 'export',
  },
};

interface Sink {
  add(protocol: OtlpProtocol, body: Buffer): void;
  refuse(): void;
}

async function listenHttp(sink: Sink, port: number): Promise<{ port: number; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const type = req.headers['content-type'] ?? '';
      const protocol = type.startsWith('application/json') ? 'http/json' : type.startsWith('application/x-protobuf') ? 'http/protobuf' : undefined;
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !protocol) {
        sink.refuse();
        return void res.writeHead(415).end();
      }
      const raw = Buffer.concat(chunks);
      sink.add(protocol, req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw);
      // An empty ExportTraceServiceResponse in the request's encoding: full success.
      res
        .writeHead(200, { 'content-type': protocol === 'http/json' ? 'application/json' : 'application/x-protobuf' })
        .end(protocol === 'http/json' ? '{}' : '');
    });
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function listenGrpc(sink: Sink): Promise<{ port: number; close: () => Promise<void> }> {
  const server = new GrpcServer();
  const exportCall: handleUnaryCall<Buffer, Buffer> = (call, callback) => {
    sink.add('grpc', call.request);
    callback(null, Buffer.alloc(0));
  };
  server.addService(TRACE_SERVICE, { Export: exportCall });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return { port, close: async () => server.forceShutdown() };
}

/** A receiver for `protocol` (http/protobuf, the OpenTelemetry default, unless told), on `port` (HTTP only; a free one unless told). */
export async function startOtlpReceiver(protocol: OtlpProtocol = 'http/protobuf', port = 0): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const received: Record<OtlpProtocol, number> = { 'http/protobuf': 0, 'http/json': 0, grpc: 0 };
  let refused = 0;
  const sink: Sink = {
    add(kind, body) {
      received[kind]++;
      bodies.push(body.toString(kind === 'http/json' ? 'utf8' : 'latin1'));
      spans.push(...(kind === 'http/json' ? decodeJson(body) : decodeProtobuf(body)));
    },
    refuse: () => void refused++,
  };
  const listening = protocol === 'grpc' ? await listenGrpc(sink) : await listenHttp(sink, port);
  return {
    protocol,
    endpoint: `http://127.0.0.1:${listening.port}`,
    spans,
    bodies,
    received,
    get refused() {
      return refused;
    },
    async waitFor(predicate, timeoutMs = 20_000, what = 'spans') {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(spans)) {
        if (Date.now() > deadline)
          throw new Error(
            `timed out waiting for ${what}; received:\n${spans.map((s) => `${s.service} ${s.name} ${s.traceId}/${s.spanId}<-${s.parentSpanId}`).join('\n')}`,
          );
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: listening.close,
  };
}

/**
 * Tracing on, exporting to `receiver` every 100 ms in its protocol. The
 * protocol variable is left unset for http/protobuf, so that tests of that
 * protocol also prove it is the default.
 */
export function tracingEnv(receiver: OtlpReceiver, serviceName?: string): Record<string, string> {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_BSP_SCHEDULE_DELAY: '100',
    ...(receiver.protocol === 'http/protobuf' ? {} : { OTEL_EXPORTER_OTLP_PROTOCOL: receiver.protocol }),
    ...(serviceName ? { OTEL_SERVICE_NAME: serviceName } : {}),
  };
}

export { startCli, type CliProcess } from './cli-process.js';
