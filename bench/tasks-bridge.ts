/**
 * bench:tasks, its second section: what N running tasks cost the real bridge (`node dist/src/cli.js`, as users run it)
 * and its Redis. Each task is a 2025-11-25 task-augmented `tools/call` of the OXP fixture's `long_call` (10 minutes),
 * made by 50 concurrent clients. Measured:
 * - memory per running task: the bridge's RSS and V8 heap after two full collections (bench/lib/gc-usage.mjs), before
 *   and with the N tasks running, the difference over N; Redis's `used_memory` likewise;
 * - heartbeats, the N tasks idle for BENCH_TASKS_IDLE_SECONDS: the commands the bridge sent Redis per task per second
 *   (MONITOR) and Redis's CPU for them, and the bridge's whole-process CPU (/proc utime + stime) per 1,000 tasks.
 * `upstream.connections` is N up to its maximum (4,096): above that the rest of the calls wait in the bridge for a
 * connection (the table says how many reached the OXP server).
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { startOxpFixture } from '../test/fixtures/oxp-fixture-server.js';
import { cpuMs, rssBytes, startBridge } from './lib/procs.js';
import {
  BRIDGE_ENV,
  clientAgent,
  commandStats,
  createTask,
  infoField,
  longCallTools,
  perOp,
  pool,
  rpc,
  tasksConfig,
  watchCommands,
} from './lib/tasks-common.js';

const IDLE_SECONDS = Number(process.env.BENCH_TASKS_IDLE_SECONDS ?? 30);
const CLIENTS = 50;
const MAX_CONNECTIONS = 4_096;
const GC_PRELOAD = fileURLToPath(new URL('./lib/gc-usage.mjs', import.meta.url));

export interface BridgeRow {
  store: 'memory' | 'redis';
  n: number;
  /** Calls open at the OXP server once every task was made (the others wait for a connection in the bridge). */
  atUpstream: number;
  createPerSecond: number;
  /** Creations answered -32000 task_store_unavailable (Redis slower than commandTimeoutMs), each tried again after 1 s. */
  refused: number;
  rssPerTask: number;
  heapPerTask: number;
  redisBytesPerTask?: number;
  /** Bridge CPU ms per second in all, and per 1,000 idle running tasks. */
  cpuMsPerSecond: number;
  cpuMsPerSecondPer1000: number;
  /** Redis: commands sent (round trips) and run inside scripts per running task per second, Redis CPU µs per second in all, and what was sent. */
  redisCommandsPerTaskSecond?: number;
  redisInnerPerTaskSecond?: number;
  redisUsPerSecond?: number;
  redisWhat?: string;
}

/** The bridge's memory after two full collections: asked by signal, read from the file it writes. */
async function collected(pid: number, out: string, n: number): Promise<{ rss: number; heapUsed: number }> {
  process.kill(pid, 'SIGUSR2');
  const file = `${out}-${n}.json`;
  for (const until = Date.now() + 60_000; !existsSync(file); await sleep(50)) if (Date.now() > until) throw new Error('no memory figures from the bridge');
  const usage = JSON.parse(readFileSync(file, 'utf8')) as { rss: number; heapUsed: number };
  return { rss: rssBytes(pid) ?? usage.rss, heapUsed: usage.heapUsed };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function measureBridge(kind: 'memory' | 'redis', n: number, redisUrl: string): Promise<BridgeRow> {
  const fixture = await startOxpFixture({ tools: longCallTools() });
  const connections = Math.min(n, MAX_CONNECTIONS);
  const config = tasksConfig(fixture.url, { connections, maxTasks: n + 100, maxPerPrincipal: n + 100, ...(kind === 'redis' && { redisUrl }) });
  const inspector = new Redis(redisUrl);
  await inspector.flushall();
  const out = join(mkdtempSync(join(tmpdir(), 'bench-tasks-gc-')), 'usage');
  const bridge = await startBridge({
    args: ['--config', config],
    nodeArgs: ['--expose-gc', '--import', GC_PRELOAD],
    env: { ...BRIDGE_ENV, GC_USAGE_OUT: out },
  });
  const agent = clientAgent(CLIENTS);
  try {
    // One task made and cancelled first: the task modules loaded, the pools opened, before the baseline.
    const warm = await createTask(bridge.url, 'warm-up', agent);
    if (!('taskId' in warm)) throw new Error(`warm-up: ${warm.error.message}`);
    await rpc(bridge.url, 'tasks/cancel', { taskId: warm.taskId }, agent);
    await sleep(500);
    const before = await collected(bridge.pid, out, 0);
    const redisBefore = await infoField(inspector, 'memory', 'used_memory');
    const started = performance.now();
    let refused = 0;
    await pool(n, CLIENTS, async (i) => {
      // A refusal (the task store did not answer within store.redis.commandTimeoutMs) is counted and tried again.
      for (let attempt = 1; ; attempt++) {
        const made = await createTask(bridge.url, `t-${i}`, agent);
        if ('taskId' in made) return;
        if (made.error.data?.kind !== 'task_store_unavailable' || attempt === 20) throw new Error(`task ${i}: ${made.error.message}`);
        refused++;
        await sleep(1_000);
      }
    });
    const createPerSecond = n / ((performance.now() - started) / 1000);
    for (const until = Date.now() + 120_000; fixture.callCount('Long.Call') < connections + 1 && Date.now() < until;) await sleep(100);
    await sleep(1_000);
    const withTasks = await collected(bridge.pid, out, 1);
    const redisWith = await infoField(inspector, 'memory', 'used_memory');
    const idle = await heartbeats(bridge.pid, kind === 'redis' ? inspector : undefined, n);
    return {
      store: kind,
      n,
      atUpstream: fixture.callCount('Long.Call') - 1,
      createPerSecond,
      refused,
      rssPerTask: (withTasks.rss - before.rss) / n,
      heapPerTask: (withTasks.heapUsed - before.heapUsed) / n,
      ...(kind === 'redis' && { redisBytesPerTask: (redisWith - redisBefore) / n }),
      ...idle,
    };
  } finally {
    await bridge.stop();
    await agent.close();
    await fixture.close();
    inspector.disconnect();
  }
}

/** The N tasks idle for IDLE_SECONDS: the bridge's CPU, and the commands it sends Redis (its lease renewals). */
async function heartbeats(pid: number, inspector: Redis | undefined, n: number) {
  if (inspector) await inspector.config('RESETSTAT');
  const stop = inspector ? await watchCommands(inspector) : undefined;
  const cpuBefore = cpuMs(pid) ?? 0;
  await sleep(IDLE_SECONDS * 1000);
  const cpu = (cpuMs(pid) ?? 0) - cpuBefore;
  const cpuMsPerSecond = cpu / IDLE_SECONDS;
  const cpuMsPerSecondPer1000 = cpuMsPerSecond / (n / 1000);
  if (!inspector || !stop) return { cpuMsPerSecond, cpuMsPerSecondPer1000 };
  const stats = await commandStats(inspector);
  const r = perOp(stats, stop(), IDLE_SECONDS);
  return {
    cpuMsPerSecond,
    cpuMsPerSecondPer1000,
    redisCommandsPerTaskSecond: r.sent / n,
    redisInnerPerTaskSecond: r.inner / n,
    redisUsPerSecond: r.usec,
    redisWhat: r.what,
  };
}

const fmt = (x: number | undefined, digits = 0) =>
  x === undefined ? '–' : x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function bridgeTable(rows: readonly BridgeRow[]): string {
  const lines = [
    `| store | running tasks | calls at the OXP server | made/s (50 clients) | refused, tried again | bridge RSS / task | bridge heap / task | Redis used_memory / task | bridge CPU ms/s (per 1,000 idle tasks) | Redis commands / task / s sent / inside scripts | Redis CPU µs/s — sent per second |`,
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.store} | ${fmt(r.n)} | ${fmt(r.atUpstream)} | ${fmt(r.createPerSecond)} | ${fmt(r.refused)} | ${fmt(r.rssPerTask)} B | ${fmt(r.heapPerTask)} B | ${r.redisBytesPerTask === undefined ? '–' : `${fmt(r.redisBytesPerTask)} B`} | ${fmt(r.cpuMsPerSecond, 1)} (${fmt(r.cpuMsPerSecondPer1000, 2)}) | ${r.redisCommandsPerTaskSecond === undefined ? '–' : `${fmt(r.redisCommandsPerTaskSecond, 4)} / ${fmt(r.redisInnerPerTaskSecond, 3)}`} | ${r.redisUsPerSecond === undefined ? '–' : `${fmt(r.redisUsPerSecond)} — ${r.redisWhat}`} |`,
    );
  }
  return lines.join('\n');
}
