/**
 * bench:tasks, its first section: what one task-store operation costs with N tasks held, through the store classes
 * themselves (src/calls/tasks: the memory store, and the Redis store wrapped as the CLI wraps it, held-locally.ts), on
 * a private redis-server. N tasks are made first (spread over `owners` owners), then each operation is timed one at a
 * time, `OPS` times, for owner 0: create, get, cancel, the first `tasks/list` page (100, the bridge's page) and the
 * whole listing of owner 0's tasks. With Redis, each batch is watched: the commands the store sent per operation
 * (MONITOR), those its scripts ran inside Redis, and Redis's CPU for them (`INFO commandstats`); and Redis's
 * `used_memory` per task held.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { HeldLocallyTaskStore } from '../src/calls/tasks/held-locally.js';
import { MemoryTaskStore } from '../src/calls/tasks/memory-store.js';
import { RedisTaskStore } from '../src/calls/tasks/redis-store.js';
import type { NewTask, TaskStore } from '../src/calls/tasks/store.js';
import { commandStats, infoField, perOp, pool, watchCommands, type Watched } from './lib/tasks-common.js';

/** Operations timed per kind (a whole listing: LISTINGS times). */
const OPS = Number(process.env.BENCH_TASKS_OPS ?? 200);
const LISTINGS = 3;
const PAGE = 100;
const HOLDER = 'bench-replica';

export interface OpFigure {
  /** Mean wall time of one operation, µs. */
  us: number;
  /** Redis: commands sent, commands run inside scripts, Redis CPU µs, per operation; what was sent. */
  sent?: number;
  inner?: number;
  redisUs?: number;
  what?: string;
}

export interface OpsRow {
  store: 'memory' | 'redis';
  n: number;
  owners: number;
  /** Tasks owner 0 holds when it is listed whole. */
  listed: number;
  fillPerSecond: number;
  ops: Record<'create' | 'get' | 'cancel' | 'page' | 'listing', OpFigure>;
  /** Redis used_memory per task held (bytes). */
  redisBytesPerTask?: number;
}

/** A task as the bridge makes one: its work names the tool, arguments, call id and principal (~300 bytes of JSON). */
function newTask(owner: string): NewTask {
  return {
    taskId: randomBytes(18).toString('base64url'),
    owner,
    ttlMs: 3_600_000,
    pollIntervalMs: 1_000,
    work: {
      direction: 'forward',
      revision: '2025-11-25',
      tool: 'long_call',
      arguments: { label: randomUUID() },
      callId: randomUUID(),
      principal: { subject: owner, name: owner, kind: 'token', groups: [] },
      urlElicitation: false,
    },
  };
}

const ownerName = (i: number) => `token:bench-owner-${i}`;

async function openStore(kind: 'memory' | 'redis', n: number, redisUrl: string | undefined): Promise<TaskStore> {
  const bounds = { maxPerOwner: n + 10 * OPS, maxTotal: n + 10 * OPS };
  if (kind === 'memory') return new MemoryTaskStore(bounds);
  // A generous commandTimeoutMs (the default is 250 ms): the fill sends 16 creations at once on a shared machine, and
  // what is measured here is time, not the refusals (the bridge section counts those at the defaults).
  const settings = {
    url: redisUrl!,
    keyPrefix: 'bench:',
    onUnavailable: 'share' as const,
    commandTimeoutMs: 5_000,
    connectTimeoutMs: 2_000,
    leaseSeconds: 300,
  };
  const redis = new RedisTaskStore(settings, bounds);
  if (!(await redis.whenReady(10_000))) throw new Error('the Redis task store did not connect');
  return new HeldLocallyTaskStore(redis);
}

/** Times `op` run `times` times one after another; with Redis, watches what it sent and what Redis spent. */
async function timed(times: number, op: (i: number) => Promise<unknown>, inspector: Redis | undefined): Promise<OpFigure> {
  const end = inspector ? await watching(inspector) : undefined;
  const started = performance.now();
  for (let i = 0; i < times; i++) await op(i);
  const us = ((performance.now() - started) * 1000) / times;
  if (!end || !inspector) return { us };
  const stats = await commandStats(inspector);
  // MONITOR's lines may trail the replies a little.
  await new Promise((r) => setTimeout(r, 200));
  const r = perOp(stats, end(), times);
  return { us, sent: r.sent, inner: r.inner, redisUs: r.usec, what: r.what };
}

/** Redis's counts reset, and its commands watched from now on. */
async function watching(inspector: Redis): Promise<() => Watched> {
  await inspector.config('RESETSTAT');
  return watchCommands(inspector);
}

/** One row: N tasks over `owners` owners in a fresh store, then each operation timed for owner 0. */
export async function measureOps(kind: 'memory' | 'redis', n: number, owners: number, redisUrl?: string): Promise<OpsRow> {
  const inspector = kind === 'redis' ? new Redis(redisUrl!, { lazyConnect: false }) : undefined;
  await inspector?.flushall();
  const memoryBefore = inspector ? await infoField(inspector, 'memory', 'used_memory') : 0;
  const store = await openStore(kind, n, redisUrl);
  try {
    const fillStarted = performance.now();
    await pool(n, 16, async (i) => {
      const created = await store.create(newTask(ownerName(i % owners)), HOLDER, 30_000);
      if (!created.ok) throw new Error(`fill: ${created.reason}`);
    });
    const fillPerSecond = n / ((performance.now() - fillStarted) / 1000);
    const redisBytesPerTask = inspector ? ((await infoField(inspector, 'memory', 'used_memory')) - memoryBefore) / n : undefined;
    const owner = ownerName(0);
    const made: string[] = [];
    const create = await timed(
      OPS,
      async () => {
        const created = await store.create(newTask(owner), HOLDER, 30_000);
        if (!created.ok) throw new Error(`create: ${created.reason}`);
        made.push(created.record.taskId);
      },
      inspector,
    );
    const get = await timed(OPS, async (i) => ((await store.get(made[(i * 7) % made.length]!, owner)) ? undefined : fail('get')), inspector);
    const cancel = await timed(OPS, async (i) => ((await store.cancel(made[i]!, owner, 'cancelled by the bench')).ok ? undefined : fail('cancel')), inspector);
    const page = await timed(OPS, async () => ((await store.list(owner, undefined, PAGE)) === 'bad_cursor' ? fail('page') : undefined), inspector);
    let listed = 0;
    const listing = await timed(
      LISTINGS,
      async () => {
        listed = 0;
        let cursor: string | undefined;
        do {
          const p = await store.list(owner, cursor, PAGE);
          if (p === 'bad_cursor') fail('listing');
          listed += p.tasks.length;
          cursor = p.nextCursor;
        } while (cursor !== undefined);
      },
      inspector,
    );
    return { store: kind, n, owners, listed, fillPerSecond, ops: { create, get, cancel, page, listing }, ...(inspector && { redisBytesPerTask }) };
  } finally {
    await store.close();
    inspector?.disconnect();
  }
}

function fail(what: string): never {
  throw new Error(`${what} did not find what the bench made`);
}

const fmt = (x: number | undefined, digits = 0) =>
  x === undefined ? '–' : x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** The section's table: one line per store, N and owners; each operation's µs, and with Redis its commands and CPU. */
export function opsTable(rows: readonly OpsRow[]): string {
  const lines = [
    `| store | tasks held | owners | owner 0 lists | create µs | get µs | cancel µs | list page µs | whole listing ms (pages) | Redis bytes/task | fill/s |`,
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const o = r.ops;
    lines.push(
      `| ${r.store} | ${fmt(r.n)} | ${r.owners} | ${fmt(r.listed)} | ${fmt(o.create.us)} | ${fmt(o.get.us)} | ${fmt(o.cancel.us)} | ${fmt(o.page.us)} | ${fmt(o.listing.us / 1000, 1)} (${Math.ceil(r.listed / PAGE)}) | ${fmt(r.redisBytesPerTask)} | ${fmt(r.fillPerSecond)} |`,
    );
  }
  const redis = rows.filter((r) => r.store === 'redis');
  if (redis.length === 0) return lines.join('\n');
  lines.push('', 'Redis work per operation: commands sent (round trips) / run inside scripts / Redis CPU µs — what was sent', '');
  lines.push('| tasks held | owners | create | get | cancel | list page | whole listing |', '|---|---|---|---|---|---|---|');
  const cell = (f: OpFigure) => `${fmt(f.sent, 1)} / ${fmt(f.inner, 1)} / ${fmt(f.redisUs, 0)} — ${f.what}`;
  for (const r of redis) {
    const o = r.ops;
    lines.push(`| ${fmt(r.n)} | ${r.owners} | ${cell(o.create)} | ${cell(o.get)} | ${cell(o.cancel)} | ${cell(o.page)} | ${cell(o.listing)} |`);
  }
  return lines.join('\n');
}
