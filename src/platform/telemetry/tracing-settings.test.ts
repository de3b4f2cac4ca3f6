import { it } from 'node:test';
import assert from 'node:assert/strict';
import { tracingDecision, TracingConfigError } from './tracing-settings.js';

const on = (env: Record<string, string>) => {
  const d = tracingDecision(env, 'svc');
  assert.ok(d.enabled, JSON.stringify(env));
  return d;
};

it('is off by default, and with only a service name or resource attributes', () => {
  for (const env of [{}, { OTEL_SERVICE_NAME: 'x' }, { OTEL_RESOURCE_ATTRIBUTES: 'a=b' }, { OTEL_TRACES_SAMPLER: 'always_on' }])
    assert.equal(tracingDecision(env, 'svc').enabled, false);
});

it('turns on with an OTLP endpoint or OTEL_TRACES_EXPORTER=otlp; OTEL_SDK_DISABLED=true wins; none turns it off', () => {
  assert.equal(on({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }).settings.endpoint, 'http://c:4318/v1/traces');
  assert.equal(on({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/custom' }).settings.endpoint, 'http://c:4318/custom');
  assert.equal(on({ OTEL_TRACES_EXPORTER: 'otlp' }).settings.endpoint, 'http://localhost:4318/v1/traces');
  assert.equal(tracingDecision({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }, 'svc').enabled, false);
  assert.equal(tracingDecision({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }, 'svc').enabled, false);
  const console = tracingDecision({ OTEL_TRACES_EXPORTER: 'console' }, 'svc');
  assert.equal(console.enabled, false);
  assert.match(console.warnings[0]!, /not supported/);
});

it('never logs credentials in the endpoint', () => {
  assert.equal(on({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://user:pw@c.example/v1/traces?key=abc' }).settings.endpoint, 'https://c.example/v1/traces');
});

it('reads the sampler, its ratio, the service name and the batch settings; bad values fall back with a warning', () => {
  const d = on({
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c',
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: '0.25',
    OTEL_SERVICE_NAME: 'gw',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OTEL_BSP_MAX_QUEUE_SIZE: '10',
    OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '50',
  });
  assert.deepEqual([d.settings.sampler, d.settings.ratio, d.settings.serviceName], ['parentbased_traceidratio', 0.25, 'gw']);
  assert.deepEqual(d.settings.batch, { scheduledDelayMillis: 100, exportTimeoutMillis: 30000, maxQueueSize: 10, maxExportBatchSize: 10 });
  const bad = on({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_TRACES_SAMPLER: 'jaeger_remote', OTEL_BSP_SCHEDULE_DELAY: 'soon' });
  assert.equal(bad.settings.sampler, 'parentbased_always_on');
  assert.equal(bad.settings.batch.scheduledDelayMillis, 5000);
  assert.equal(bad.warnings.length, 2);
  assert.equal(on({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' }).settings.ratio, 1);
});

it('chooses the protocol as the specification says: the traces variable over the general one, http/protobuf by default; an unknown one fails fast', () => {
  const protocol = (env: Record<string, string>) => on({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', ...env }).settings.protocol;
  assert.equal(protocol({}), 'http/protobuf');
  assert.equal(protocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }), 'http/json');
  assert.equal(protocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'GRPC' }), 'grpc');
  assert.equal(protocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' }), 'grpc');
  assert.equal(protocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' }), 'http/protobuf');
  assert.throws(
    () => tracingDecision({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'thrift' }, 'svc'),
    (e: Error) => e instanceof TracingConfigError && /OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=thrift/.test(e.message),
  );
  // Tracing off (no endpoint, exporter none) or on: the value is wrong either way, and said at start.
  for (const env of [{}, { OTEL_TRACES_EXPORTER: 'none' }, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c' }])
    assert.throws(
      () => tracingDecision({ ...env, OTEL_EXPORTER_OTLP_PROTOCOL: 'bogus' }, 'svc'),
      (e: Error) => e instanceof TracingConfigError && /^OTEL_EXPORTER_OTLP_PROTOCOL=bogus is not an OTLP protocol/.test(e.message),
    );
  assert.equal(tracingDecision({ OTEL_EXPORTER_OTLP_PROTOCOL: 'bogus', OTEL_SDK_DISABLED: 'true' }, 'svc').enabled, false, 'OTEL_SDK_DISABLED wins');
});

it('reports the endpoint the exporter will use: /v1/traces appended over HTTP only, the traces endpoint as given, the default port of the protocol', () => {
  const endpoint = (env: Record<string, string>) => on(env).settings.endpoint;
  assert.equal(endpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' }), 'http://c:4318/v1/traces');
  assert.equal(endpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }), 'http://c:4317/');
  assert.equal(
    endpoint({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:1', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
    'http://c:4317/',
  );
  assert.equal(endpoint({ OTEL_TRACES_EXPORTER: 'otlp' }), 'http://localhost:4318/v1/traces');
  assert.equal(endpoint({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }), 'http://localhost:4317/');
  assert.equal(endpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'user:pw@c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }), 'c:4317');
});
