/**
 * `npm run bench:tasks`: what tasks cost at scale (issue 41), at 100, 1,000 and 10,000 tasks held, in the memory
 * store and in Redis (a private redis-server). Two sections (`BENCH_ONLY=ops,bridge`, both by default):
 * - `ops` (bench/tasks-ops.ts): one store operation's time — create, get, cancel, one `tasks/list` page, a whole
 *   listing — with one owner and with many, and with Redis the commands and Redis CPU per operation;
 * - `bridge` (bench/tasks-bridge.ts): the real CLI running N long tasks: memory per task (bridge and Redis) and what
 *   idle tasks cost (heartbeats: Redis commands per task per second, bridge CPU per 1,000 tasks).
 * `BENCH_ONLY=replicas` runs bench/tasks-replicas.ts instead: 10,000 tasks over three replicas on one Redis.
 * Knobs: BENCH_TASKS_N (100,1000,10000), BENCH_TASKS_OWNERS (1,100), BENCH_TASKS_OPS (200),
 * BENCH_TASKS_IDLE_SECONDS (30).
 */
import { requireRedisServer, startRedis } from '../test/helpers/redis-server.js';
import { machineHeader, loadLine } from './lib/machine.js';
import { bridgeTable, measureBridge, type BridgeRow } from './tasks-bridge.js';
import { measureOps, opsTable, type OpsRow } from './tasks-ops.js';

const list = (name: string, fallback: string) =>
  (process.env[name] ?? fallback)
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
const only = list('BENCH_ONLY', 'ops,bridge');
const sizes = list('BENCH_TASKS_N', '100,1000,10000').map(Number);
const ownerCounts = list('BENCH_TASKS_OWNERS', '1,100').map(Number);

async function main(): Promise<void> {
  if (only.includes('replicas')) {
    const { runReplicas } = await import('./tasks-replicas.js');
    process.exitCode = (await runReplicas()) ? 0 : 1;
    return;
  }
  const missing = requireRedisServer().why;
  if (missing) throw new Error(missing);
  console.log(machineHeader('bench:tasks'));
  const redis = await startRedis();
  try {
    if (only.includes('ops')) {
      const rows: OpsRow[] = [];
      for (const n of sizes)
        for (const owners of ownerCounts)
          for (const store of ['memory', 'redis'] as const) {
            rows.push(await measureOps(store, n, owners, redis.url));
            console.error(`ops: ${store} ${n} tasks, ${owners} owners done (${loadLine()})`);
          }
      console.log(`\nOne operation with N tasks held (${process.env.BENCH_TASKS_OPS ?? 200} of each, one at a time, for owner 0; ${loadLine()})\n`);
      console.log(opsTable(rows));
    }
    if (only.includes('bridge')) {
      const rows: BridgeRow[] = [];
      for (const n of sizes)
        for (const store of ['memory', 'redis'] as const) {
          rows.push(await measureBridge(store, n, redis.url));
          console.error(`bridge: ${store} ${n} tasks done (${loadLine()})`);
        }
      console.log(`\nThe real bridge running N long tasks (${loadLine()})\n`);
      console.log(bridgeTable(rows));
    }
  } finally {
    await redis.close();
  }
}

await main();
