/**
 * What every hostile-peer case asserts afterwards: the process still serves
 * everyone else. `/healthz` (the bridge) or `/health` (oxp-server) must
 * answer 200 in under a second.
 */
import assert from 'node:assert/strict';

export async function assertHealthy(url: string, what = 'the bridge'): Promise<void> {
  const started = performance.now();
  const res = await fetch(url, { signal: AbortSignal.timeout(1000) }).catch((error: unknown) => {
    throw new Error(`${what} did not answer ${url} within 1 s: ${error instanceof Error ? error.message : String(error)}`);
  });
  await res.arrayBuffer();
  assert.equal(res.status, 200, `${url} answered ${res.status}`);
  assert.ok(performance.now() - started < 1000, `${url} took ${Math.round(performance.now() - started)} ms`);
}

/** `/healthz` beside an MCP endpoint URL (`http://h:p/mcp` → `http://h:p/healthz`). */
export function healthzOf(mcpUrl: string): string {
  return new URL('/healthz', mcpUrl).toString();
}
