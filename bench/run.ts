/**
 * `npm run bench`: every party on loopback, started here, measured in one run.
 *
 *   oxp        a minimal node:http OXP server with one trivial tool (the upstream)
 *   bridge     `node dist/src/cli.js --oxp-url <oxp> --log-level warn`, a child process
 *   native     a v2-SDK MCP server (createMcpHandler + toNodeHandler), tool in process
 *   bare       a bare node:http JSON-RPC handler answering the same call (upper bound)
 *   forwarder  a raw node:http JSON-RPC → OXP forwarder (the floor for any proxy)
 *
 * `tools/call` at concurrency 1, 8 and 64, modern (2026-07-28) and legacy
 * (2025-11-25 stateless) requests, `BENCH_SECONDS` (default 5) per cell, in
 * `BENCH_PASSES` (default 2) passes that start the parties in alternate
 * orders, cell figures averaged over the passes; then
 * cold start, catalog scale (7,500 tools) and concurrent sessions. Prints one
 * table and writes bench/results/latest.json and latest.svg.
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { mkdirSync, writeFileSync } from 'node:fs';
import { request as undiciRequest, Agent } from 'undici';
import { load, type LoadResult } from './lib/load.js';
import { rssBytes, sampleRss, startBenchServer, startBridge, freePort, cleanEnv, REPO_ROOT, threadCpu, threadCpuPerCall, type Child } from './lib/procs.js';
import { machineHeader, pinSelf, placed, placementLine } from './lib/machine.js';
import {
  PROTOCOLS,
  checkAnswer,
  oxpCallRequest,
  parseMcpBody,
  toolsCallRequest,
  toolsListRequest,
  type HttpRequestSpec,
  type Protocol,
} from './lib/workload.js';
import { renderSvg, renderTable, type BenchReport, type Cell, type TargetName } from './lib/report.js';
import { spawn } from 'node:child_process';
import { driveSessions, openSessions } from './lib/sessions.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** `BENCH_PASSES` (default 2): runs of the tools/call section, alternating the parties' start order (callsPass). */
const PASSES = Math.max(1, Number(process.env.BENCH_PASSES ?? 2));
const WARMUP_SECONDS = Math.min(2, Math.max(1, SECONDS / 3));
const CONCURRENCY = [1, 8, 64] as const;
const COLD_START_RUNS = Number(process.env.BENCH_COLD_RUNS ?? 5);
// The Node binary of the cold-start cell, bridge and hello-world alike (e.g. the image's release from
// test/image-node, which has V8's compile cache); default: the one running the bench.
const COLD_NODE = process.env.BENCH_COLD_NODE || process.execPath;
const CATALOG_TOOLS = 7_500;
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 1_000);
const MB = 1024 * 1024;
/** `BENCH_ONLY=calls,sessions,cold,catalog`: run some sections only (printed, results/ left alone). */
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((x) => x.trim())) : undefined;
const wanted = (section: string) => !ONLY || ONLY.has(section);

const log = (line: string) => process.stderr.write(`${line}\n`);

async function measure(
  target: TargetName,
  child: Child,
  spec: HttpRequestSpec,
  protocol: Protocol | 'oxp',
  connections: number,
  upstream?: Child,
): Promise<Cell> {
  const cpu0 = threadCpu(child.pid);
  const up0 = upstream ? threadCpu(upstream.pid) : undefined;
  const rss = sampleRss([child.pid]);
  const r: LoadResult = await load(child.url, spec, connections, SECONDS);
  const { peak } = rss.stop();
  const cpu1 = threadCpu(child.pid);
  const up1 = upstream ? threadCpu(upstream.pid) : undefined;
  // The whole process, every thread: what the operating system bills (and the main thread's share of it).
  const perReq = (a: ReturnType<typeof threadCpu>, b: ReturnType<typeof threadCpu>) =>
    a !== undefined && b !== undefined && r.requests > 0 ? threadCpuPerCall(a, b, r.requests) : undefined;
  const own = perReq(cpu0, cpu1);
  const cell: Cell = {
    target,
    protocol,
    connections,
    rps: r.rps,
    requests: r.requests,
    p50: r.p50,
    p99: r.p99,
    mean: r.mean,
    errors: r.errors + r.non2xx + r.timeouts,
    rssMB: (peak.get(child.pid) ?? NaN) / MB,
    cpuUsPerReq: own?.total,
    mainCpuUsPerReq: own?.main,
    upstreamCpuUsPerReq: perReq(up0, up1)?.total,
  };
  log(
    `  ${target.padEnd(9)} ${String(protocol).padEnd(6)} c=${String(connections).padEnd(3)} ${Math.round(cell.rps).toString().padStart(6)} req/s  p50 ${cell.p50.toFixed(3)} ms  p99 ${cell.p99.toFixed(3)} ms${cell.cpuUsPerReq !== undefined ? `  ${Math.round(cell.cpuUsPerReq)} µs CPU/req (main thread ${Math.round(cell.mainCpuUsPerReq ?? NaN)})` : ''}  ${cell.errors ? `${cell.errors} errors` : ''}`,
  );
  return cell;
}

/** Spawns a process and polls `url` until it answers 200; the time from spawn to that answer. */
async function timeToReady(args: string[], url: string, env: Record<string, string> = {}): Promise<number> {
  const started = performance.now();
  // On the measured server's core, as every other party (this process, pinned to the load cores, would pass them on).
  const proc = spawn(...placed('measured', COLD_NODE, args), { cwd: REPO_ROOT, env: cleanEnv(env), stdio: ['ignore', 'ignore', 'inherit'] });
  try {
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${proc.exitCode}`);
      try {
        const res = await fetch(url);
        await res.arrayBuffer();
        if (res.status === 200) return performance.now() - started;
      } catch {
        // not yet listening
      }
      if (performance.now() - started > 30_000) throw new Error(`${url} not ready within 30 s`);
      await new Promise((r) => setTimeout(r, 2));
    }
  } finally {
    proc.kill('SIGKILL');
    await new Promise((r) => (proc.exitCode !== null || proc.signalCode !== null ? r(undefined) : proc.once('exit', r)));
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function coldStart() {
  const bridgeRuns: number[] = [];
  const nodeRuns: number[] = [];
  for (let i = 0; i < COLD_START_RUNS; i++) {
    const port = await freePort();
    bridgeRuns.push(
      await timeToReady([process.env.BENCH_BRIDGE_CLI ?? 'dist/src/cli.js', '--port', String(port), '--log-level', 'warn'], `http://127.0.0.1:${port}/readyz`),
    );
    const port2 = await freePort();
    // What Node itself needs to start and answer one HTTP request: the floor under any start-up figure.
    nodeRuns.push(
      await timeToReady(['-e', `require('node:http').createServer((q,s)=>s.end('ok')).listen(${port2},'127.0.0.1')`], `http://127.0.0.1:${port2}/`),
    );
  }
  return { runs: bridgeRuns, medianMs: median(bridgeRuns), minMs: Math.min(...bridgeRuns), nodeHelloMedianMs: median(nodeRuns) };
}

/** A 2026-07-28 server/discover: a cheap request through the pipeline, the catalog untouched. */
function discoverRequest(): HttpRequestSpec {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  return {
    method: 'POST',
    path: '/mcp',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'server/discover',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta } }),
  };
}

async function post(url: string, spec: HttpRequestSpec, dispatcher?: Agent) {
  const res = await undiciRequest(url, { method: 'POST', headers: spec.headers, body: spec.body, ...(dispatcher ? { dispatcher } : {}) });
  const text = await res.body.text();
  return { status: res.statusCode, text, contentType: (res.headers['content-type'] as string | undefined) ?? null };
}

async function catalogScale() {
  const oxp = await startBenchServer('oxp-7500', 'oxp', { BENCH_OXP_EXTRA_TOOLS: String(CATALOG_TOOLS - 1) });
  const bridge = await startBridge({ oxpUrl: oxp.url });
  try {
    const rssReady = rssBytes(bridge.pid)! / MB;
    // The first MCP request after /readyz waits for the pipeline's warm-up (the SDK and the pipeline loaded after
    // listening, bench/README.md#first-request-after-ready-the-warm-up-not-the-catalog), whatever the catalog: timed
    // on its own (a server/discover), then the rest of the warm-up awaited, so that the first page below is the catalog's cost.
    const t0 = performance.now();
    const warm = await post(bridge.url, discoverRequest());
    const warmUpMs = performance.now() - t0;
    if (warm.status !== 200) throw new Error(`server/discover answered ${warm.status}: ${warm.text.slice(0, 300)}`);
    // The rest of the warm-up (express and its routes, loaded after the pipeline): a path only express answers (404).
    await (await undiciRequest(new URL('/warm-up-done', bridge.url).href)).body.text();
    // Its last stages (metrics, the validator) have no answer to wait for: a second is more than they take.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const listing: Record<string, { firstPageMs: number; firstPageWarmMs: number; fullListingMs: number; pages: number; tools: number }> = {};
    for (const protocol of PROTOCOLS) {
      let t = performance.now();
      const first = await post(bridge.url, toolsListRequest(protocol));
      const firstPageMs = performance.now() - t;
      if (first.status !== 200) throw new Error(`tools/list answered ${first.status}: ${first.text.slice(0, 300)}`);
      t = performance.now();
      await post(bridge.url, toolsListRequest(protocol));
      const firstPageWarmMs = performance.now() - t;
      t = performance.now();
      let cursor: string | undefined;
      let pages = 0;
      let tools = 0;
      do {
        const page = await post(bridge.url, toolsListRequest(protocol, cursor));
        const [message] = parseMcpBody(page.text, page.contentType);
        const result = message?.result as { tools: unknown[]; nextCursor?: string };
        pages++;
        tools += result.tools.length;
        cursor = result.nextCursor;
      } while (cursor !== undefined);
      const fullListingMs = performance.now() - t;
      if (tools !== CATALOG_TOOLS) throw new Error(`full listing returned ${tools} tools, expected ${CATALOG_TOOLS}`);
      listing[protocol] = { firstPageMs, firstPageWarmMs, fullListingMs, pages, tools };
      log(
        `  ${protocol}: first page ${firstPageMs.toFixed(1)} ms (again ${firstPageWarmMs.toFixed(1)} ms), full listing ${pages} pages ${fullListingMs.toFixed(1)} ms`,
      );
    }
    const rssListed = rssBytes(bridge.pid)! / MB;
    return { tools: CATALOG_TOOLS, readyMs: bridge.readyMs, warmUpMs, rssReadyMB: rssReady, rssAfterListingMB: rssListed, listing };
  } finally {
    await bridge.stop();
    await oxp.stop();
  }
}

/** N legacy clients with their own signed session ids plus modern clients, all at once, for SECONDS (lib/sessions.ts). */
async function sessions(oxp: Child) {
  const bridge = await startBridge({ oxpUrl: oxp.url });
  const dispatcher = new Agent({ connections: SESSIONS + 64, pipelining: 1 });
  try {
    const ids = await openSessions(bridge.url, SESSIONS, dispatcher);
    const rssAfterInitializeMB = rssBytes(bridge.pid)! / MB;
    const rss = sampleRss([bridge.pid]);
    const run = await driveSessions(bridge.url, ids, 64, SECONDS, dispatcher);
    const { peak } = rss.stop();
    return {
      legacySessions: SESSIONS,
      modernClients: 64,
      seconds: run.seconds,
      calls: run.ok,
      rps: run.ok / run.seconds,
      errors: run.failed,
      rssAfterInitializeMB,
      peakRssMB: (peak.get(bridge.pid) ?? NaN) / MB,
    };
  } finally {
    await dispatcher.close();
    await bridge.stop();
  }
}

/**
 * One pass of the tools/call section: every party started anew, warmed up, measured, stopped. bench:ab found the
 * process started first measured cheaper (up to ~30 %), so every other pass starts the parties in the reverse
 * order, and a cell's figures are the mean of its passes: two independently started sets of processes rather than
 * one. The measuring order within a row stays the same.
 */
async function callsPass(oxp: Child, reversed: boolean): Promise<Cell[]> {
  // In the table's order, which is also the measuring order within a row.
  const parties: { name: TargetName; start: () => Promise<Child>; callsOxp: boolean }[] = [
    { name: 'bare', start: () => startBenchServer('bare', 'bare'), callsOxp: false },
    { name: 'native', start: () => startBenchServer('native', 'native-sdk'), callsOxp: false },
    { name: 'bridge', start: () => startBridge({ oxpUrl: oxp.url }), callsOxp: true },
    // What users run: the default log level, one line per call (to a pipe drained here, as under a container runtime).
    { name: 'bridge-info', start: () => startBridge({ oxpUrl: oxp.url, logLevel: 'info' }), callsOxp: true },
    { name: 'forwarder', start: () => startBenchServer('forwarder', 'forwarder', { BENCH_OXP_URL: oxp.url }), callsOxp: true },
  ];
  const targets: { name: TargetName; child: Child; upstream: Child | undefined }[] = [];
  const cells: Cell[] = [];
  try {
    for (const party of reversed ? [...parties].reverse() : parties)
      targets.push({ name: party.name, child: await party.start(), upstream: party.callsOxp ? oxp : undefined });
    log(`pass (started: ${targets.map((t) => t.name).join(', ')})`);
    if (reversed) targets.reverse();
    for (const protocol of PROTOCOLS) for (const t of targets) await checkAnswer(t.name, t.child.url, toolsCallRequest(protocol));

    log('warm-up');
    for (const protocol of PROTOCOLS) for (const t of targets) await load(t.child.url, toolsCallRequest(protocol), 8, WARMUP_SECONDS);
    await load(oxp.url, oxpCallRequest(), 8, WARMUP_SECONDS);

    log('tools/call');
    // Interleaved: each (protocol, concurrency) row measures every target back to back, so a
    // noisy neighbour skews one row rather than one target.
    for (const connections of CONCURRENCY) {
      cells.push(await measure('oxp-direct', oxp, oxpCallRequest(), 'oxp', connections));
      for (const protocol of PROTOCOLS)
        for (const t of targets) cells.push(await measure(t.name, t.child, toolsCallRequest(protocol), protocol, connections, t.upstream));
    }
    for (const protocol of PROTOCOLS) for (const t of targets) await checkAnswer(t.name, t.child.url, toolsCallRequest(protocol));
    return cells;
  } finally {
    for (const t of targets) await t.child.stop();
  }
}

/** The passes' cells, cell by cell (same order in every pass): means, the peak RSS, errors summed. */
function mergePasses(passes: Cell[][]): Cell[] {
  const mean = (xs: (number | undefined)[]) => (xs.every((x) => x !== undefined) ? xs.reduce((a, b) => a + b, 0) / xs.length : undefined);
  return passes[0]!.map((first, i) => {
    const all = passes.map((cells) => cells[i]!);
    return {
      ...first,
      rps: mean(all.map((c) => c.rps))!,
      requests: all.reduce((a, c) => a + c.requests, 0),
      p50: mean(all.map((c) => c.p50))!,
      p99: mean(all.map((c) => c.p99))!,
      mean: mean(all.map((c) => c.mean))!,
      mainCpuUsPerReq: mean(all.map((c) => c.mainCpuUsPerReq)),
      errors: all.reduce((a, c) => a + c.errors, 0),
      rssMB: Math.max(...all.map((c) => c.rssMB)),
      cpuUsPerReq: mean(all.map((c) => c.cpuUsPerReq)),
      upstreamCpuUsPerReq: mean(all.map((c) => c.upstreamCpuUsPerReq)),
    };
  });
}

async function main(): Promise<void> {
  const loadBefore = loadavg();
  pinSelf();
  log(`${machineHeader('bench')}\nbench: ${SECONDS} s per cell`);

  const oxp = await startBenchServer('oxp', 'oxp');
  const cells: Cell[] = [];
  if (wanted('calls')) {
    const passes: Cell[][] = [];
    for (let pass = 0; pass < PASSES; pass++) passes.push(await callsPass(oxp, pass % 2 === 1));
    cells.push(...mergePasses(passes));
  }

  let sessionRun: BenchReport['sessions'];
  if (wanted('sessions')) {
    log('concurrent sessions');
    sessionRun = await sessions(oxp);
    log(
      `  ${sessionRun.legacySessions} legacy sessions + ${sessionRun.modernClients} modern clients: ${Math.round(sessionRun.rps)} calls/s, ${sessionRun.errors} errors, peak RSS ${sessionRun.peakRssMB.toFixed(1)} MB (after the initializes: ${sessionRun.rssAfterInitializeMB.toFixed(1)} MB)`,
    );
  }
  await oxp.stop();

  let cold: BenchReport['coldStart'];
  if (wanted('cold')) {
    log('cold start (demo toolkit)');
    cold = await coldStart();
    log(`  median ${cold.medianMs.toFixed(0)} ms (node hello-world ${cold.nodeHelloMedianMs.toFixed(0)} ms)`);
  }

  let catalog: BenchReport['catalog'];
  if (wanted('catalog')) {
    log(`catalog scale (${CATALOG_TOOLS} tools)`);
    catalog = await catalogScale();
    log(`  the first request after ready (a server/discover) waited ${catalog.warmUpMs?.toFixed(1) ?? '?'} ms for the pipeline's warm-up`);
  }

  const report: BenchReport = {
    date: new Date().toISOString(),
    command: 'npm run bench',
    seconds: SECONDS,
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      memoryGB: Math.round(totalmem() / 1024 ** 3),
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      loadAverageBefore: loadBefore,
      loadAverageAfter: loadavg(),
      placement: placementLine(),
    },
    cells,
    ...(cold ? { coldStart: cold } : {}),
    ...(catalog ? { catalog } : {}),
    ...(sessionRun ? { sessions: sessionRun } : {}),
  };
  const table = renderTable(report);
  process.stdout.write(`${table}\n`);
  if (ONLY) return;
  const dir = new URL('results/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  // BENCH_OUT names the files (default `latest`), e.g. to keep a baseline run of another build (BENCH_BRIDGE_CLI).
  const out = process.env.BENCH_OUT ?? 'latest';
  writeFileSync(
    new URL(`${out}.json`, dir),
    `${JSON.stringify({ ...report, bridgeCli: process.env.BENCH_BRIDGE_CLI ?? 'dist/src/cli.js', summary: table.split('\n') }, null, 2)}\n`,
  );
  writeFileSync(new URL(`${out}.svg`, dir), renderSvg(report));
  log(`wrote bench/results/${out}.json and bench/results/${out}.svg`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
