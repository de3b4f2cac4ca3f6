/**
 * `node --import tsx bench/first-request.ts`: how long the first MCP request sent right after `/readyz` answered 200
 * takes, per request kind, each in a fresh bridge (`dist/src/cli.js`, or `BENCH_BRIDGE_CLI`) in front of the bench's
 * OXP server: a plain 2026-07-28 `tools/list` and `tools/call` (the hot shapes, which the face answers without the
 * SDK) and a `server/discover` (which the SDK answers, so it waits for its load). What it measures is the face's
 * warm-up (docs/design.md: what loads after listening), not the catalog. `FIRST_RUNS` fresh bridges per kind (5).
 * Run `npm run build` first.
 */
import { request } from 'undici';
import { startBenchServer, startBridge } from './lib/procs.js';
import { median } from './lib/stats.js';
import { toolsCallRequest, toolsListRequest, type HttpRequestSpec } from './lib/workload.js';

const RUNS = Number(process.env.FIRST_RUNS ?? 5);

function discoverRequest(): HttpRequestSpec {
  const list = toolsListRequest('modern');
  const body = JSON.parse(list.body) as { params: { _meta: unknown } };
  return {
    ...list,
    headers: { ...list.headers, 'mcp-method': 'server/discover' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: body.params._meta } }),
  };
}

const KINDS: Record<string, () => HttpRequestSpec> = {
  'tools/list (2026-07-28)': () => toolsListRequest('modern'),
  'tools/call (2026-07-28)': () => toolsCallRequest('modern'),
  'server/discover (2026-07-28)': discoverRequest,
};

const oxp = await startBenchServer('oxp', 'oxp');
try {
  for (const [kind, spec] of Object.entries(KINDS)) {
    const runs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const bridge = await startBridge({ oxpUrl: oxp.url });
      try {
        const { headers, body } = spec();
        const t = performance.now();
        const res = await request(bridge.url, { method: 'POST', headers, body });
        const text = await res.body.text();
        runs.push(performance.now() - t);
        if (res.statusCode !== 200 || text.includes('"error"')) throw new Error(`${kind} answered ${res.statusCode}: ${text.slice(0, 300)}`);
      } finally {
        await bridge.stop();
      }
    }
    console.log(`${kind}: median ${median(runs).toFixed(1)} ms after ready (runs: ${runs.map((r) => r.toFixed(1)).join(', ')})`);
  }
} finally {
  await oxp.stop();
}
