/**
 * What the task benches share (bench/tasks.ts, bench/tasks-replicas.ts): Redis's own accounts (`INFO commandstats`,
 * `INFO memory`), a 2025-11-25 JSON-RPC client for the bridge, the OXP fixture's long tool and a bridge
 * configuration for many tasks. The OXP fixture, redis-server and nginx come from the test helpers (the bench's own
 * OXP server has one trivial tool and no delays).
 */
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { Agent } from 'undici';
import type { FixtureTool } from '../../test/fixtures/oxp-fixture-server.js';

/** The call each task runs: `long_call` waits this long (10 minutes) before answering; every bench cancels first. */
export const LONG_CALL_MS = 600_000;
export const TOKEN = 'bench-tasks-token-0123456789abcdef0123';

/** `long_call`: 10 minutes, then "done <label>"; the label makes each call recognisable at the OXP server. */
export function longCallTools(): FixtureTool[] {
  return [
    {
      id: 'Long.Call',
      name: 'long_call',
      version: '1.0.0',
      description: 'waits ten minutes',
      input_schema: { type: 'object', properties: { label: { type: 'string' } } },
      handler: (req) => ({ delayMs: LONG_CALL_MS, then: { value: `done ${String((req.input as { label?: unknown } | undefined)?.label)}` } }),
    },
  ];
}

/** A config file for many long tasks on the fixture at `oxpUrl`: `extra` is merged in (upstream, store, tasks). */
export function tasksConfig(oxpUrl: string, extra: { connections: number; redisUrl?: string; maxTasks: number; maxPerPrincipal: number }): string {
  const dir = mkdtempSync(join(tmpdir(), 'bench-tasks-'));
  const file = join(dir, 'bridge.json');
  const config = {
    upstream: { url: oxpUrl, connections: extra.connections },
    auth: { tokens: [{ name: 'bench', value: { env: 'BENCH_TASKS_TOKEN' } }] },
    http: { allowedHosts: ['127.0.0.1', 'localhost'] },
    tasks: { maxTasks: extra.maxTasks, maxPerPrincipal: extra.maxPerPrincipal },
    ...(extra.redisUrl !== undefined && { store: { redis: { url: extra.redisUrl } } }),
  };
  writeFileSync(file, JSON.stringify(config));
  return file;
}

export const BRIDGE_ENV = { BENCH_TASKS_TOKEN: TOKEN, MCP_SESSION_SECRET: 'bench-tasks-share-only-this-secret-0123456789' };

/** One connection pool for the bench's requests: `connections` keep-alive connections, no pipelining. */
export const clientAgent = (connections: number) =>
  new Agent({ connections, pipelining: 1, keepAliveTimeout: 60_000, headersTimeout: 120_000, bodyTimeout: 120_000 });

export type RpcReply = { result?: Record<string, unknown>; error?: { code: number; message: string; data?: { kind?: string } } };

/** One 2025-11-25 JSON-RPC exchange, stateless (any replica answers it from the request alone). */
export async function rpc(url: string, method: string, params: Record<string, unknown>, dispatcher?: Agent): Promise<RpcReply> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      authorization: `Bearer ${TOKEN}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(120_000),
    // @ts-expect-error undici's dispatcher option of Node's fetch
    dispatcher,
  });
  const text = await res.text();
  const json = text.startsWith('{') ? text : /^data: (.*)$/m.exec(text)?.[1];
  if (json === undefined) throw new Error(`HTTP ${res.status}: ${text.slice(0, 200)}`);
  return JSON.parse(json) as RpcReply;
}

/** A task-augmented `long_call` labelled `label`: the task id, or the error answered. */
export async function createTask(url: string, label: string, dispatcher?: Agent): Promise<{ taskId: string } | { error: NonNullable<RpcReply['error']> }> {
  const reply = await rpc(url, 'tools/call', { name: 'long_call', arguments: { label }, task: { ttl: 3_600_000 } }, dispatcher);
  if (reply.error) return { error: reply.error };
  const task = reply.result?.task as { taskId?: string } | undefined;
  if (typeof task?.taskId !== 'string') throw new Error(`no task in ${JSON.stringify(reply).slice(0, 300)}`);
  return { taskId: task.taskId };
}

/** Every task of the caller through `tasks/list`, page after page, and how many pages. */
export async function listAll(
  url: string,
  dispatcher?: Agent,
): Promise<{ tasks: { taskId: string; status: string; statusMessage?: string }[]; pages: number }> {
  const tasks: { taskId: string; status: string; statusMessage?: string }[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const reply = await rpc(url, 'tasks/list', cursor === undefined ? {} : { cursor }, dispatcher);
    if (!reply.result) throw new Error(`tasks/list: ${JSON.stringify(reply.error)}`);
    pages++;
    tasks.push(...(reply.result.tasks as { taskId: string; status: string; statusMessage?: string }[]));
    cursor = reply.result.nextCursor as string | undefined;
  } while (cursor !== undefined);
  return { tasks, pages };
}

/** Runs `work(i)` for i in [0, n) with `concurrency` at once; resolves with the results in order. */
export async function pool<T>(n: number, concurrency: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const out = new Array<T>(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, concurrency) }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await work(i);
      }
    }),
  );
  return out;
}

export interface CommandStat {
  calls: number;
  usec: number;
}

/** `INFO commandstats`: calls and CPU µs per command since the last `CONFIG RESETSTAT` (scripts' inner commands included). */
export async function commandStats(redis: Redis): Promise<Map<string, CommandStat>> {
  const out = new Map<string, CommandStat>();
  for (const line of (await redis.info('commandstats')).split('\n')) {
    const m = /^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/.exec(line);
    if (m) out.set(m[1]!, { calls: Number(m[2]), usec: Number(m[3]) });
  }
  return out;
}

/** One figure of `INFO <section>`. */
export async function infoField(redis: Redis, section: string, field: string): Promise<number> {
  const m = new RegExp(`^${field}:(\\d+)`, 'm').exec(await redis.info(section));
  return m ? Number(m[1]) : NaN;
}

/** Commands as MONITOR saw them, by name: those a client sent (round trips) and those scripts ran inside Redis. */
export interface Watched {
  client: Map<string, number>;
  lua: Map<string, number>;
}

/** Watches Redis's commands (MONITOR, on a connection of its own) until the returned function is called. */
export async function watchCommands(redis: Redis): Promise<() => Watched> {
  const seen: Watched = { client: new Map(), lua: new Map() };
  const monitor = await redis.monitor();
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    const name = String(args[0]).toLowerCase();
    if (name === 'info' || name === 'config' || name === 'monitor') return;
    const into = source === 'lua' ? seen.lua : seen.client;
    into.set(name, (into.get(name) ?? 0) + 1);
  });
  return () => {
    monitor.disconnect();
    return seen;
  };
}

const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

/**
 * Per operation: commands the client sent (each a round trip, a script counted once), commands run inside scripts,
 * and Redis's CPU for them (`INFO commandstats` usec of what the client sent: a script's usec includes its inner
 * commands'; a command seen both ways is split in proportion to its calls).
 */
export function perOp(stats: Map<string, CommandStat>, watched: Watched, ops: number): { sent: number; inner: number; usec: number; what: string } {
  let usec = 0;
  for (const [name, direct] of watched.client) {
    const s = stats.get(name);
    if (s && s.calls > 0) usec += s.usec * Math.min(1, direct / s.calls);
  }
  const what = [...watched.client]
    .sort((a, b) => b[1] - a[1])
    .map(([n, c]) => `${n} ${(c / ops).toFixed(c % ops === 0 ? 0 : 2)}`)
    .join(' + ');
  return { sent: total(watched.client) / ops, inner: total(watched.lua) / ops, usec: usec / ops, what };
}
