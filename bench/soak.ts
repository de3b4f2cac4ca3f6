/**
 * `npm run bench:soak`: the bridge under steady mixed load for
 * `SOAK_SECONDS` (default 600), its RSS sampled every `SOAK_SAMPLE_SECONDS`
 * (default 10). The mix covers both HTTP paths: modern and session-carrying
 * legacy tools/call and tools/list (fast path), plus legacy initialize and a
 * progress-token call (SDK path). Reports RSS over time and whether it stays
 * flat within 10 % after warm-up (the first fifth of the run, at least 30 s);
 * writes bench/results/soak-latest.json. Not part of `npm test` or CI.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { rssBytes, startBenchServer, startBridge } from './lib/procs.js';
import { MESSAGE, TOOL_NAME, toolsCallRequest, toolsListRequest } from './lib/workload.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const SAMPLE_SECONDS = Number(process.env.SOAK_SAMPLE_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.SOAK_CONNECTIONS ?? 16);
const MB = 1024 * 1024;

async function main(): Promise<void> {
  const oxp = await startBenchServer('oxp', 'oxp');
  const bridge = await startBridge({ oxpUrl: oxp.url });
  const samples: { t: number; rssMB: number; rps: number; errors: number }[] = [];
  try {
    const init = await fetch(bridge.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'soak', version: '1' } },
      }),
    });
    await init.text();
    const sessionId = init.headers.get('mcp-session-id');
    if (!sessionId) throw new Error('initialize returned no session id');

    const modernCall = toolsCallRequest('modern');
    const legacyCall = toolsCallRequest('legacy');
    const { 'mcp-protocol-version': _v, ...sessionHeaders } = legacyCall.headers;
    const requests = [
      modernCall,
      { ...legacyCall, headers: { ...sessionHeaders, 'mcp-session-id': sessionId } },
      toolsListRequest('modern'),
      legacyCall,
      toolsListRequest('legacy'),
      // SDK path: a progress token, and a fresh legacy session.
      {
        ...legacyCall,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: TOOL_NAME, arguments: { message: MESSAGE }, _meta: { progressToken: 'soak' } },
        }),
      },
      {
        ...legacyCall,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 3,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'soak', version: '1' } },
        }),
      },
    ].map((r) => ({ method: r.method, path: r.path, headers: r.headers, body: r.body }));

    let ok = 0;
    let errors = 0;
    const started = performance.now();
    process.stderr.write(`soak: ${SECONDS} s, ${CONNECTIONS} connections, RSS every ${SAMPLE_SECONDS} s (bridge pid ${bridge.pid})\n`);
    const instance = autocannon({ url: bridge.url, connections: CONNECTIONS, duration: SECONDS, timeout: 30, requests }, () => undefined);
    instance.on('response', (_client: unknown, status: number) => {
      if (status >= 200 && status < 300) ok++;
      else errors++;
    });
    instance.on('reqError', () => errors++);
    const done = new Promise<void>((resolve) => instance.on('done', () => resolve()));
    let lastOk = 0;
    let lastErrors = 0;
    const sample = () => {
      const t = Math.round((performance.now() - started) / 1000);
      const rss = (rssBytes(bridge.pid) ?? NaN) / MB;
      const s = { t, rssMB: rss, rps: (ok - lastOk) / SAMPLE_SECONDS, errors: errors - lastErrors };
      lastOk = ok;
      lastErrors = errors;
      samples.push(s);
      process.stdout.write(
        `t=${String(t).padStart(4)} s  RSS ${rss.toFixed(1).padStart(6)} MB  ${Math.round(s.rps).toString().padStart(6)} req/s  ${s.errors} errors\n`,
      );
    };
    const timer = setInterval(sample, SAMPLE_SECONDS * 1000);
    await done;
    clearInterval(timer);
  } finally {
    await bridge.stop();
    await oxp.stop();
  }
  const warmup = Math.max(30, SECONDS / 5);
  const steady = samples.filter((s) => s.t >= warmup);
  const base = steady[0]?.rssMB ?? NaN;
  const peak = Math.max(...steady.map((s) => s.rssMB));
  const last = steady.at(-1)?.rssMB ?? NaN;
  const growth = (peak - base) / base;
  const totalErrors = samples.reduce((a, s) => a + s.errors, 0);
  const verdict = `RSS after warm-up (${warmup} s): ${base.toFixed(1)} MB → peak ${peak.toFixed(1)} MB, last ${last.toFixed(1)} MB (${(growth * 100).toFixed(1)} %): ${growth <= 0.1 ? 'flat within 10 %' : 'NOT flat within 10 %'}; ${totalErrors} errors`;
  process.stdout.write(`${verdict}\n`);
  const dir = new URL('results/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    new URL('soak-latest.json', dir),
    `${JSON.stringify({ date: new Date().toISOString(), seconds: SECONDS, connections: CONNECTIONS, node: process.version, warmupSeconds: warmup, samples, verdict }, null, 2)}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
