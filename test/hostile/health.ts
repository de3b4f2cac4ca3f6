/**
 * What every hostile-peer case asserts afterwards: the process still serves
 * everyone else. `/healthz` (the bridge) or `/health` (oxp-server) must
 * answer 200 in under a second — on a quiet machine. On a loaded one the
 * second grows with the load per core (at most 10 s): a bridge that a hostile
 * peer froze stays frozen far longer (a catastrophic pattern runs for minutes),
 * while a healthy one on a machine running ten processes per core can take
 * more than a second to be scheduled (the CI run with the machine loaded).
 */
import assert from 'node:assert/strict';
import { availableParallelism, loadavg } from 'node:os';

/** 1 s, times the load per core when that is above 1, at most 10 s. */
export function healthBoundMs(): number {
  return Math.round(1000 * Math.min(10, Math.max(1, loadavg()[0]! / availableParallelism())));
}

export async function assertHealthy(url: string, what = 'the bridge'): Promise<void> {
  const bound = healthBoundMs();
  const started = performance.now();
  const res = await fetch(url, { signal: AbortSignal.timeout(bound) }).catch((error: unknown) => {
    throw new Error(`${what} did not answer ${url} within ${bound} ms: ${error instanceof Error ? error.message : String(error)}`);
  });
  await res.arrayBuffer();
  assert.equal(res.status, 200, `${url} answered ${res.status}`);
  assert.ok(performance.now() - started < bound, `${url} took ${Math.round(performance.now() - started)} ms (bound ${bound} ms)`);
}

/** `/healthz` beside an MCP endpoint URL (`http://h:p/mcp` → `http://h:p/healthz`). */
export function healthzOf(mcpUrl: string): string {
  return new URL('/healthz', mcpUrl).toString();
}
