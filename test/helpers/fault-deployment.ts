/**
 * The deployment the fault test (test/integration/faults.test.ts) and `npm run bench:faults` break: three replicas of
 * the real CLI, each on a port of its own that survives its restarts, behind a real nginx, sharing a real Redis
 * (append-only, fsync always: a kill loses nothing it acknowledged), in front of the OXP fixture, whose `calls`
 * record when each call_id was open (CallSpan). Every start, signal and exit of a replica is written down with its
 * time, so the checks (fault-invariants.ts) can tell a replica that was running from one that was not.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startOxpFixture, type FixtureTool, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { startCli, type CliProcess } from './cli-process.js';
import { exchangeRpc, Ledger } from './fault-load.js';
import { freePort, startNginx, type Nginx } from './nginx.js';
import { startRedis, type TestRedis } from './redis-server.js';
import { until } from './task-fixtures.js';

export const FAULT_TOKEN = 'faults-loader-token-0123456789abcdef';
/** The one tool: waits `ms`, then answers `done <nonce>`; the nonce is how a call is found at the OXP server. */
export const FAULT_TOOL = 'work';
export const FAULT_TOOL_ID = 'Fault.Work';

/** What happened to a replica, when (Date.now()); `code` is an exit's code or signal. */
export interface ReplicaEvent {
  at: number;
  replica: number;
  what: 'listening' | 'sigkill' | 'sigterm' | 'drained' | 'exit';
  code?: number | string;
}

export interface DeploymentSettings {
  /** tasks.leaseMs: shorter than the Redis freeze, so a freeze outlasts every lease. */
  leaseMs: number;
  /** A rule's maxInFlight for the one principal: some calls and tasks are refused by the limit all along. */
  maxInFlight: number;
}

/**
 * tasks.leaseMs for this run: 1.5 s, longer on a loaded machine (times half the load per core, at most 4 times). A
 * runner renews its lease every third of it, and a replica not scheduled for longer than the lease has its tasks
 * taken over while it still runs them (a stalled runner cannot be told from a dead one: what a lease is for), which
 * the invariant "no two connections of one call_id open at once" then sees. At a load of 14-16 on two cores (three
 * helpers' work beside the suite) a replica answered a creation 3.6 s after it was sent and missed its renewals.
 */
export function leaseMsForLoad(loadPerCore = loadavg()[0]! / availableParallelism()): number {
  return Math.round(1_500 * Math.min(4, Math.max(1, loadPerCore / 2)));
}

export const DEFAULT_SETTINGS: DeploymentSettings = { leaseMs: leaseMsForLoad(), maxInFlight: 14 };

export interface Replica {
  readonly index: number;
  readonly port: number;
  /** `http://127.0.0.1:PORT/mcp`. */
  readonly url: string;
  cli?: CliProcess;
}

export interface Deployment {
  readonly settings: DeploymentSettings;
  readonly redis: TestRedis;
  readonly fixture: OxpFixtureServer;
  readonly replicas: readonly Replica[];
  readonly nginx: Nginx;
  readonly events: ReplicaEvent[];
  /** SIGKILL now (as the kernel's OOM killer would), then wait for the exit. */
  kill(index: number): Promise<void>;
  /** SIGTERM (as a rolling update does), wait for the exit; the replica is down until start(). */
  terminate(index: number): Promise<void>;
  /** Starts the replica again on its port; resolves once it listens and is ready. */
  start(index: number): Promise<void>;
  /** Each live replica's resident set size now, in KiB (/proc/PID/status VmRSS). */
  rss(): { replica: number; kib: number | undefined }[];
  /** Every replica's log lines so far (its stderr, JSON). */
  logs(): string[];
  /** nginx's error log so far. */
  nginxErrors(): string;
  close(): Promise<void>;
}

export function faultTool(): FixtureTool {
  return {
    id: FAULT_TOOL_ID,
    name: FAULT_TOOL,
    version: '1.0.0',
    description: 'Waits ms milliseconds, then answers with the nonce (the fault test)',
    input_schema: { type: 'object', properties: { nonce: { type: 'string' }, ms: { type: 'integer' } }, required: ['nonce'] },
    handler: (req) => {
      const input = req.input as { nonce?: unknown; ms?: unknown } | undefined;
      return { delayMs: Number(input?.ms ?? 0), then: { value: `done ${String(input?.nonce)}` } };
    },
  };
}

function configFile(oxpUrl: string, redisUrl: string, settings: DeploymentSettings): string {
  const file = join(mkdtempSync(join(tmpdir(), 'bridge-faults-')), 'bridge.json');
  const config = {
    upstream: { url: oxpUrl },
    auth: { tokens: [{ name: 'loader', value: { env: 'FAULT_TOKEN' } }] },
    http: { allowedHosts: ['127.0.0.1', 'localhost'], shutdownGraceSeconds: 10 },
    // An in-flight slot of a replica killed mid-call is freed after 5 s, not 300.
    store: { redis: { url: redisUrl, leaseSeconds: 5 } },
    tasks: { leaseMs: settings.leaseMs, pollIntervalMs: 200, maxPerPrincipal: 5_000 },
    access: { rules: [{ id: 'budget', effect: 'allow', limits: { maxInFlight: settings.maxInFlight } }] },
  };
  writeFileSync(file, JSON.stringify(config));
  return file;
}

/** Starts Redis, the fixture, three replicas and nginx; every replica is ready when it resolves. */
export async function startDeployment(nginxPath: string, settings: DeploymentSettings = DEFAULT_SETTINGS): Promise<Deployment> {
  const redis = await startRedis({ persist: true });
  const fixture = await startOxpFixture({ tools: [faultTool()] });
  const config = configFile(fixture.url, redis.url, settings);
  const ports = [await freePort(), await freePort(), await freePort()];
  const replicas: Replica[] = ports.map((port, index) => ({ index, port, url: `http://127.0.0.1:${port}/mcp` }));
  const events: ReplicaEvent[] = [];
  const pastLogs: string[] = [];
  const env = { FAULT_TOKEN, MCP_SESSION_SECRET: 'faults-share-only-this-secret-0123456789' };

  const start = async (index: number) => {
    const replica = replicas[index]!;
    if (replica.cli) pastLogs.push(...replica.cli.logs);
    const cli = await startCli(['--config', config, '--port', String(replica.port), '--log-level', 'info'], env, { timeoutMs: 60_000 });
    replica.cli = cli;
    events.push({ at: Date.now(), replica: index, what: 'listening' });
    void cli.exited.then((code) => {
      const drained = drainEnd(cli.logs);
      if (drained !== undefined) events.push({ at: drained, replica: index, what: 'drained' });
      events.push({ at: Date.now(), replica: index, what: 'exit', code });
    });
    await until(async () => (await fetch(new URL('/readyz', replica.url)).catch(() => undefined))?.status === 200, 60_000, `replica ${index} ready`);
  };
  const signal = async (index: number, name: 'SIGKILL' | 'SIGTERM') => {
    const cli = replicas[index]!.cli;
    if (!cli || cli.child.exitCode !== null || cli.child.signalCode !== null) throw new Error(`replica ${index} is not running`);
    events.push({ at: Date.now(), replica: index, what: name === 'SIGKILL' ? 'sigkill' : 'sigterm' });
    cli.child.kill(name);
    await cli.exited;
  };

  await Promise.all(replicas.map((r) => start(r.index)));
  await warmUp(replicas);
  const nginx = await startNginx(
    nginxPath,
    replicas.map((r) => r.url),
  );
  return {
    settings,
    redis,
    fixture,
    replicas,
    nginx,
    events,
    kill: (index) => signal(index, 'SIGKILL'),
    terminate: (index) => signal(index, 'SIGTERM'),
    start,
    rss: () => replicas.map((r) => ({ replica: r.index, kib: rssKib(r.cli) })),
    logs: () => [...pastLogs, ...replicas.flatMap((r) => r.cli?.logs ?? [])],
    nginxErrors: () => readText(nginx.errorLog),
    close: async () => {
      nginx.close();
      await Promise.all(replicas.map(async (r) => r.cli?.stop()));
      await fixture.close();
      await redis.close();
    },
  };
}

/** A call and a task on each replica before the load: what a first call loads is not the faults' to wait for. */
async function warmUp(replicas: readonly Replica[]): Promise<void> {
  const ledger = new Ledger();
  const call = (r: Replica, kind: string, extra: Record<string, unknown>) =>
    exchangeRpc(ledger.next('plain', r.index, {}), { via: r.index, url: r.url }, FAULT_TOKEN, 'tools/call', {
      name: FAULT_TOOL,
      arguments: { nonce: `warm-up-${r.index}-${kind}`, ms: 0 },
      ...extra,
    });
  await Promise.all(replicas.map(async (r) => [await call(r, 'plain', {}), await call(r, 'task', { task: { ttl: 60_000 } })]));
}

/** When a replica's drain ended, by its own log line (its clock is this machine's): after it, it may stop listening. */
function drainEnd(logs: readonly string[]): number | undefined {
  const line = logs.find((l) => /"msg":"(drained: no request in flight|drain deadline passed)/.test(l));
  const time = line ? (JSON.parse(line) as { time?: unknown }).time : undefined;
  return typeof time === 'string' ? Date.parse(time) : undefined;
}

function rssKib(cli: CliProcess | undefined): number | undefined {
  if (!cli?.child.pid || cli.child.exitCode !== null || cli.child.signalCode !== null) return undefined;
  const match = /^VmRSS:\s+(\d+) kB/m.exec(readText(`/proc/${cli.child.pid}/status`));
  return match ? Number(match[1]) : undefined;
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
