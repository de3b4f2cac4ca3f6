/** The call path's metrics print exactly what prom-client's inc()/observe() with a labels object print (the histogram is observed through children bound once). */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import type { CallOutcome } from '../core/call-outcomes.js';
import { Metrics } from './metrics.js';

const { Counter, Histogram, Registry } = createRequire(import.meta.url)('prom-client') as typeof import('prom-client');

const REQUESTS = 'mcp_oxp_bridge_requests_total';
const LATENCY = 'mcp_oxp_bridge_upstream_request_duration_seconds';
const sources = { catalogTools: () => [], circuits: () => [], inFlight: () => 0 };

/** The metrics as they were made before (prom-client's inc and observe with a labels object per call). */
function reference() {
  const registry = new Registry();
  const registers = [registry];
  const requests = new Counter({
    name: REQUESTS,
    help: 'MCP tools/list and tools/call requests by method, tool, upstream, protocol version and outcome.',
    labelNames: ['method', 'tool', 'upstream', 'protocol_version', 'outcome'],
    registers,
  });
  const latency = new Histogram({
    name: LATENCY,
    help: 'Latency of each OXP POST /tools/call attempt, by upstream and outcome.',
    labelNames: ['upstream', 'outcome'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers,
  });
  return {
    registry,
    call: (version: string, tool: string, upstream: string, outcome: string) =>
      requests.inc({ method: 'tools/call', tool, upstream, protocol_version: version, outcome }),
    list: (version: string, outcome: string) => requests.inc({ method: 'tools/list', tool: '', upstream: '', protocol_version: version, outcome }),
    attempt: (upstream: string, outcome: string, s: number) => latency.observe({ upstream, outcome }, s),
  };
}

it('requests_total and the attempt histogram print as prom-client printed them, scrape after scrape', async () => {
  const metrics = new Metrics(sources, { defaultMetrics: false });
  const before = reference();
  const both = {
    call(...a: [string, string, string, CallOutcome]) {
      metrics.countCall(...a);
      before.call(...a);
    },
    list(version: string, outcome: string) {
      metrics.countList(version, outcome);
      before.list(version, outcome);
    },
    attempt(upstream: string, outcome: string, s: number) {
      metrics.observeAttempt(upstream, outcome, s);
      before.attempt(upstream, outcome, s);
    },
  };
  // Counted before anything else made the registry (the first count makes it).
  both.call('2026-07-28', 'echo', 'default', 'success');
  both.list('2025-11-25', 'success');
  const scrape = async () => {
    for (const name of [REQUESTS, LATENCY])
      assert.equal(await metrics.registry.getSingleMetricAsString(name), await before.registry.getSingleMetricAsString(name), name);
  };
  await scrape();
  for (let i = 0; i < 50; i++) {
    both.call(i % 3 ? '2026-07-28' : '2025-06-18', `tool${i % 4}`, i % 5 ? 'default' : 'other', i % 7 ? 'success' : 'tool_error');
    both.attempt(i % 5 ? 'default' : 'other', i % 7 ? 'success' : 'timeout', (i % 13) / 97);
  }
  both.call('2026-07-28', '(unknown)', '', 'unknown_tool');
  both.list('2026-07-28', 'error');
  await scrape();
  both.call('2026-07-28', 'echo', 'default', 'success');
  await scrape();
  assert.match(
    await metrics.registry.metrics(),
    /mcp_oxp_bridge_requests_total\{method="tools\/call",tool="echo",upstream="default",protocol_version="2026-07-28",outcome="success"\} 2\n/,
  );
});

it('principal_calls_total: a configured name, else the kind; outcomes as the calls end (denied included)', async () => {
  const metrics = new Metrics(sources, { defaultMetrics: false });
  const alice = { subject: 'alice', name: 'alice', kind: 'token', groups: [], scopes: [], named: true } as const;
  const plain = { subject: 'token:1a2b3c4d5e6f', name: 'token:1a2b3c4d5e6f', kind: 'token', groups: [], scopes: [] } as const;
  const user = (name: string) => ({ subject: name, name, kind: 'oauth', groups: [], scopes: [] }) as const;
  metrics.countCall('2026-07-28', 'echo', 'default', 'success', alice);
  metrics.countCall('2026-07-28', 'echo', 'default', 'success', alice);
  metrics.countCall('2026-07-28', '(unknown)', '', 'denied', alice);
  metrics.countCall('2026-07-28', 'echo', 'default', 'success', plain);
  // Every OAuth user is one series: their names come from outside, unbounded.
  for (let i = 0; i < 100; i++) metrics.countCall('2025-11-25', 'echo', 'default', 'success', user(`user-${i}`));
  metrics.countCall('2025-11-25', 'echo', 'default', 'success');
  // A token named like a kind stays apart from that kind by its `kind` label.
  metrics.countCall('2025-11-25', 'echo', 'default', 'success', { ...alice, name: 'oauth', subject: 'oauth' });
  const text = await metrics.registry.getSingleMetricAsString('mcp_oxp_bridge_principal_calls_total');
  assert.deepEqual(
    text.split('\n').filter((l) => !l.startsWith('#')),
    [
      'mcp_oxp_bridge_principal_calls_total{principal="alice",kind="token",outcome="success"} 2',
      'mcp_oxp_bridge_principal_calls_total{principal="alice",kind="token",outcome="denied"} 1',
      'mcp_oxp_bridge_principal_calls_total{principal="token",kind="token",outcome="success"} 1',
      'mcp_oxp_bridge_principal_calls_total{principal="oauth",kind="oauth",outcome="success"} 100',
      'mcp_oxp_bridge_principal_calls_total{principal="anonymous",kind="anonymous",outcome="success"} 1',
      'mcp_oxp_bridge_principal_calls_total{principal="oauth",kind="token",outcome="success"} 1',
    ],
  );
  assert.doesNotMatch(await metrics.registry.metrics(), /user-|1a2b3c/, 'no unbounded name becomes a label');
});
