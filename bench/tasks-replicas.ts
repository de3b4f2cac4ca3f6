/**
 * `BENCH_ONLY=replicas npm run bench:tasks`: 10,000 running tasks over three replicas sharing one Redis (issue 41).
 * Three real CLIs (`dist/src/cli.js`, store.redis at its defaults, tasks.maxTasks and maxPerPrincipal raised,
 * upstream.connections 4,096 each) behind a real round-robin nginx, the OXP fixture's 10-minute `long_call`, and 50
 * concurrent clients making the tasks through nginx, each call labelled so the OXP server's requests can be matched.
 * Checked, each a line of the verdict:
 * - every creation answered a task (none refused: no -32000 task_store_unavailable at store.redis's defaults);
 * - every task made is in the whole `tasks/list`; every one cancelled (`tasks/cancel` answers `cancelled`), and
 *   listed `cancelled` afterwards;
 * - the OXP server never ran a call whose creation was refused, and ran every one that was made.
 * Printed: creation time p50 / p99, the listing's time, each replica's RSS, Redis's used_memory.
 * Knobs: BENCH_REPLICAS_FIXTURE (`inline`: the OXP fixture in the bench's process, as the first runs had it), BENCH_REPLICAS_TASKS (10,000), BENCH_REPLICAS_CLIENTS (50), BENCH_REPLICAS_LOG_LEVEL (the replicas' `--log-level`,
 * warn; with BENCH_BRIDGE_STDERR=inherit their log is on this terminal's stderr).
 */
import { Redis } from 'ioredis';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { startOxpFixture } from '../test/fixtures/oxp-fixture-server.js';
import { requireNginx, startNginx } from '../test/helpers/nginx.js';
import { requireRedisServer, startRedis } from '../test/helpers/redis-server.js';
import { loadLine, machineHeader } from './lib/machine.js';
import { REPO_ROOT, rssBytes, startBridge } from './lib/procs.js';
import { BRIDGE_ENV, clientAgent, createTask, infoField, listAll, longCallTools, pool, rpc, tasksConfig, type RpcReply } from './lib/tasks-common.js';

type RpcError = NonNullable<RpcReply['error']>;

const TASKS = Number(process.env.BENCH_REPLICAS_TASKS ?? 10_000);
const CLIENTS = Number(process.env.BENCH_REPLICAS_CLIENTS ?? 50);
const REPLICAS = 3;

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] ?? NaN;
const mb = (b: number | undefined) => (b === undefined ? '?' : `${(b / 1048576).toFixed(1)} MB`);

/** The OXP fixture as the scenario reads it: the labels of the calls it received, the calls abandoned. */
interface Upstream {
  url: string;
  labels(): Promise<Set<string>>;
  abandoned(): Promise<number>;
  close(): Promise<void>;
}

const labelOf = (body: unknown) => (body as { request?: { input?: { label?: unknown } } } | undefined)?.request?.input?.label;

/**
 * The fixture in a process of its own (servers/tasks-oxp.ts), or with BENCH_REPLICAS_FIXTURE=inline in this one, which
 * also drives the clients: on a loaded machine that process's stalls reset the replicas' new OXP connections.
 */
async function startUpstream(): Promise<Upstream> {
  if (process.env.BENCH_REPLICAS_FIXTURE === 'inline') {
    const fixture = await startOxpFixture({ tools: longCallTools() });
    return {
      url: fixture.url,
      labels: async () => new Set(fixture.requests.map((r) => labelOf(r.body)).filter((l): l is string => typeof l === 'string')),
      abandoned: async () => fixture.abandonedCalls.length,
      close: () => fixture.close(),
    };
  }
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/servers/tasks-oxp.ts'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the OXP fixture exited (${code})`)));
    createInterface({ input: child.stdout }).once('line', resolve);
  });
  const { url, control } = JSON.parse(line) as { url: string; control: string };
  const read = async () => (await (await fetch(`${control}/labels`)).json()) as { labels: string[]; abandoned: number };
  return {
    url,
    labels: async () => new Set((await read()).labels),
    abandoned: async () => (await read()).abandoned,
    close: async () => void child.kill('SIGTERM'),
  };
}

export async function runReplicas(): Promise<boolean> {
  const nginx = requireNginx();
  const why = nginx.why ?? requireRedisServer().why;
  if (why) throw new Error(why);
  // Three replicas, nginx, Redis, the OXP server and the clients share the machine: none is placed on a core of its
  // own (the other benches pin the one measured server), unless BENCH_PIN says otherwise.
  process.env.BENCH_PIN ??= 'off';
  console.log(machineHeader('bench:tasks replicas'));
  const redis = await startRedis();
  const inspector = new Redis(redis.url);
  const fixture = await startUpstream();
  const config = tasksConfig(fixture.url, { connections: 4_096, redisUrl: redis.url, maxTasks: TASKS * 2, maxPerPrincipal: TASKS * 2 });
  const replicas = await Promise.all(
    Array.from({ length: REPLICAS }, () =>
      startBridge({ args: ['--config', config], env: BRIDGE_ENV, logLevel: process.env.BENCH_REPLICAS_LOG_LEVEL ?? 'warn' }),
    ),
  );
  const proxy = await startNginx(
    nginx.path!,
    replicas.map((r) => r.url),
  );
  const agent = clientAgent(CLIENTS);
  try {
    return await scenario(proxy.url, replicas, fixture, inspector, agent);
  } finally {
    proxy.close();
    await Promise.all(replicas.map((r) => r.stop()));
    await agent.close();
    await fixture.close();
    inspector.disconnect();
    await redis.close();
  }
}

async function scenario(
  url: string,
  replicas: { pid: number }[],
  fixture: Upstream,
  inspector: Redis,
  agent: ReturnType<typeof clientAgent>,
): Promise<boolean> {
  const times: number[] = [];
  const made = new Map<string, string>();
  const refused: { label: string; code: number; kind?: string; message: string }[] = [];
  const started = performance.now();
  await pool(TASKS, CLIENTS, async (i) => {
    const label = `r-${i}`;
    const t0 = performance.now();
    const reply = await createTask(url, label, agent).catch((e: unknown): { error: RpcError } => ({ error: { code: 0, message: String(e) } }));
    times.push(performance.now() - t0);
    if ('taskId' in reply) made.set(reply.taskId, label);
    else
      refused.push({
        label,
        code: reply.error.code,
        ...(reply.error.data?.kind !== undefined && { kind: reply.error.data.kind }),
        message: reply.error.message,
      });
  });
  const createSeconds = (performance.now() - started) / 1000;
  const expected = made.size;
  for (const until = Date.now() + 120_000; (await fixture.labels()).size < expected && Date.now() < until;) await new Promise((r) => setTimeout(r, 250));
  const rss = replicas.map((r) => rssBytes(r.pid));
  const usedMemory = await infoField(inspector, 'memory', 'used_memory');
  const listStarted = performance.now();
  const listing = await listAll(url, agent);
  const listMs = performance.now() - listStarted;
  const listed = new Set(listing.tasks.map((t) => t.taskId));
  const unlisted = [...made.keys()].filter((id) => !listed.has(id));
  const cancelStarted = performance.now();
  const cancels = await pool([...made.keys()].length, CLIENTS, async (i) => {
    const taskId = [...made.keys()][i]!;
    const reply: RpcReply = await rpc(url, 'tasks/cancel', { taskId }, agent).catch((e: unknown) => ({ error: { code: 0, message: String(e) } }));
    return reply.result?.status === 'cancelled' ? undefined : `${taskId}: ${JSON.stringify(reply.error ?? reply.result).slice(0, 200)}`;
  });
  const cancelSeconds = (performance.now() - cancelStarted) / 1000;
  const notCancelled = cancels.filter((x): x is string => x !== undefined);
  const after = await listAll(url, agent);
  const notEnded = after.tasks.filter((t) => made.has(t.taskId) && t.status !== 'cancelled');
  const ends = new Map<string, number>();
  for (const t of notEnded) ends.set(`${t.status}: ${t.statusMessage ?? ''}`, (ends.get(`${t.status}: ${t.statusMessage ?? ''}`) ?? 0) + 1);
  // Before the cancels: how the tasks stood (a task that failed before its cancel says why here).
  const before = new Map<string, number>();
  for (const t of listing.tasks)
    before.set(`${t.status}: ${(t.statusMessage ?? '').slice(0, 160)}`, (before.get(`${t.status}: ${(t.statusMessage ?? '').slice(0, 160)}`) ?? 0) + 1);
  const atUpstream = await fixture.labels();
  const ranRefused = refused.filter((r) => atUpstream.has(r.label));
  const neverRan = [...made.values()].filter((label) => !atUpstream.has(label));
  const kinds = new Map<string, number>();
  for (const r of refused) kinds.set(`${r.code} ${r.kind ?? ''}`.trim(), (kinds.get(`${r.code} ${r.kind ?? ''}`.trim()) ?? 0) + 1);

  console.log(`\n${TASKS.toLocaleString('en-US')} tasks over ${REPLICAS} replicas on one Redis, through nginx, ${CLIENTS} clients (${loadLine()})\n`);
  console.log(`| figure | value |\n|---|---|`);
  console.log(
    `| creations | ${made.size.toLocaleString('en-US')} made, ${refused.length} refused, in ${createSeconds.toFixed(1)} s (${(TASKS / createSeconds).toFixed(0)}/s) |`,
  );
  console.log(`| creation time p50 / p99 / max | ${pct(times, 50).toFixed(0)} / ${pct(times, 99).toFixed(0)} / ${Math.max(...times).toFixed(0)} ms |`);
  console.log(`| whole tasks/list | ${listing.tasks.length.toLocaleString('en-US')} tasks, ${listing.pages} pages, ${listMs.toFixed(0)} ms |`);
  console.log(`| cancels | ${made.size - notCancelled.length} answered cancelled in ${cancelSeconds.toFixed(1)} s |`);
  console.log(`| replicas' RSS with the tasks running | ${rss.map(mb).join(' / ')} |`);
  console.log(`| Redis used_memory | ${mb(usedMemory)} (${(usedMemory / Math.max(1, made.size)).toFixed(0)} B per task) |`);
  console.log(`| calls at the OXP server | ${atUpstream.size.toLocaleString('en-US')} |`);
  console.log(`| abandoned calls at the OXP server (its client closed the connection) | ${(await fixture.abandoned()).toLocaleString('en-US')} |`);
  const top = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([k, n]) => `${n} × ${k}`)
      .join('; ');
  console.log(`| the tasks listed before the cancels | ${top(before)} |`);
  if (ends.size) console.log(`| the tasks not cancelled at the end | ${top(ends)} |`);
  const checks: [string, boolean, string][] = [
    [
      'every creation answered a task',
      refused.length === 0,
      [...kinds].map(([k, n]) => `${n} × ${k}`).join(', ') + (refused[0] ? ` (first: ${refused[0].message})` : ''),
    ],
    ['every task listed', unlisted.length === 0, `${unlisted.length} missing`],
    ['every task cancelled', notCancelled.length === 0, notCancelled.slice(0, 3).join('; ')],
    ['every task ended cancelled', notEnded.length === 0, `${notEnded.length} not cancelled`],
    [
      'no refused creation ran at the OXP server',
      ranRefused.length === 0,
      ranRefused
        .slice(0, 5)
        .map((r) => r.label)
        .join(', '),
    ],
    ['every task made ran at the OXP server', neverRan.length === 0, `${neverRan.length} never arrived`],
  ];
  console.log('');
  for (const [what, ok, detail] of checks) console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${ok ? '' : `: ${detail}`}`);
  return checks.every(([, ok]) => ok);
}
