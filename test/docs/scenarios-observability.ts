/** docs/observability.md's examples: the audit trail to a file, tracing turned on by its variables, a bad protocol. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { assertExit, mcpPost, type ExampleRun, type Scenario } from './example-run.js';

/**
 * The collector the example's endpoint presumes, at the documented 127.0.0.1:4318: with nothing listening there, the
 * exporter retried its shutdown export for about 10 s before the bridge exited.
 */
async function collector(r: ExampleRun): Promise<() => Promise<void>> {
  const receiver = await startOtlpReceiver('http/protobuf', r.sandbox.port(4318));
  return () => receiver.close();
}

export const observabilityScenarios: Scenario[] = [
  {
    name: 'observability.md: the audit trail to a file',
    steps: [
      {
        id: 'audit-file',
        run: async (r) => {
          await r.serve('audit-file', 'http://127.0.0.1:8080/readyz', { status: 200 });
          const call = await mcpPost(r.url('http://127.0.0.1:8080/mcp'), {
            id: 1,
            method: 'tools/call',
            params: { name: 'Calculator_Add', arguments: { a: 1, b: 2 } },
          });
          assert.equal(call.status, 200);
          // Records are buffered like log lines: written within a second when the process is quiet.
          let lines: string[] = [];
          for (let i = 0; i < 50 && lines.length === 0; i++) {
            await sleep(100);
            try {
              lines = readFileSync(join(r.sandbox.dir, 'audit.jsonl'), 'utf8').split('\n').filter(Boolean);
            } catch {
              // not created yet
            }
          }
          const record = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
          assert.equal(record.type, 'call');
          assert.equal(record.decision, 'allowed');
          assert.equal(record.outcome, 'success');
          assert.deepEqual(record.argumentKeys, ['a', 'b']);
          assert.deepEqual(record.tool, { name: 'Calculator_Add', oxpId: 'Calculator.Add@1.0.0', upstream: 'demo' });
        },
      },
    ],
  },
  {
    name: 'observability.md: tracing on',
    setup: collector,
    steps: [
      {
        id: 'tracing-on',
        run: async (r) => {
          const bridge = await r.serve('tracing-on', 'http://127.0.0.1:8080/readyz', { status: 200 });
          const line = bridge
            .output()
            .split('\n')
            .find((l) => l.includes('OpenTelemetry tracing on'));
          assert.ok(line, bridge.output());
          const fields = JSON.parse(line) as { protocol: string; endpoint: string };
          assert.equal(fields.protocol, 'http/protobuf');
          assert.equal(fields.endpoint, r.url('http://127.0.0.1:4318/v1/traces'));
        },
      },
      {
        id: 'otel-bad-protocol',
        run: async (r) => {
          const result = await r.shell('otel-bad-protocol');
          assertExit(result, 2);
          assert.match(result.stderr, /OTEL_EXPORTER_OTLP_PROTOCOL=bogus/);
        },
      },
    ],
  },
];
