/**
 * `node --import tsx bench/classify.ts`: the classification step alone, on
 * the bench's own `tools/call` bodies (bench/lib/workload.ts), parsed once:
 * the SDK's `classifyInboundRequest` against the bridge's check for the hot
 * shapes (src/forward/face/hot-classify.ts), alternating, CPU µs per request
 * (process.cpuUsage, so a busy neighbour slows the clock less than the
 * figure). This is the number src/forward/face/hot-classify.ts's header says to
 * watch: when the SDK's classifier costs about what the bridge's does, the
 * owned copy goes.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { classifyHotShape } from '../src/forward/face/hot-classify.js';
import { median } from './lib/stats.js';
import { PROTOCOLS, toolsCallRequest } from './lib/workload.js';

const N = Number(process.env.CLASSIFY_N ?? 50_000);
const ROUNDS = Number(process.env.CLASSIFY_ROUNDS ?? 5);

function sdk(headers: IncomingHttpHeaders, body: unknown) {
  const h = (name: string) => headers[name] as string | undefined;
  return classifyInboundRequest({
    httpMethod: 'POST',
    ...(h('mcp-protocol-version') !== undefined ? { protocolVersionHeader: h('mcp-protocol-version')! } : {}),
    ...(h('mcp-method') !== undefined ? { mcpMethodHeader: h('mcp-method')! } : {}),
    ...(h('mcp-name') !== undefined ? { mcpNameHeader: h('mcp-name')! } : {}),
    body,
  });
}

function cpuMicrosPer(fn: () => unknown): number {
  const start = process.cpuUsage();
  for (let i = 0; i < N; i++) fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / N;
}

const lines = ['| request | SDK classifier µs | bridge check µs | ratio |', '|---|---|---|---|'];
for (const protocol of PROTOCOLS) {
  const spec = toolsCallRequest(protocol);
  const headers: IncomingHttpHeaders = spec.headers;
  // A fresh parse per call, as the bridge has: no shape the engine has already specialised on.
  const bodies = Array.from({ length: 64 }, () => JSON.parse(spec.body) as unknown);
  let i = 0;
  const next = () => bodies[i++ & 63];
  if (!classifyHotShape('POST', headers, next())) throw new Error(`${protocol}: the bench's request is not a hot shape`);
  const theirs: number[] = [];
  const ours: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    theirs.push(cpuMicrosPer(() => sdk(headers, next())));
    ours.push(cpuMicrosPer(() => classifyHotShape('POST', headers, next())));
  }
  const [a, b] = [median(theirs), median(ours)];
  lines.push(`| ${protocol} tools/call | ${a.toFixed(2)} | ${b.toFixed(2)} | ${(a / b).toFixed(0)}× |`);
}
process.stdout.write(`${lines.join('\n')}\n(${ROUNDS} rounds × ${N} calls each, alternating, medians)\n`);
