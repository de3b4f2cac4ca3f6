/**
 * `node --import tsx bench/record-path.ts <checkout of the build before>`: CPU per call of what every tools/call
 * does for metrics and the console's record, in this checkout and in another one (e.g. `git archive 767e2b1`),
 * alternated in one process: the request counter, one attempt of the upstream histogram, and the recorder fed
 * as the bridge's console feeds it. No bridge and no load generator, so a machine loaded past its cores (where
 * `bench:ab` measures noise) still gives a comparison. Knob: `RECORD_CALLS` (200,000 per round, 7 rounds each).
 */
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { median } from './lib/stats.js';

type Path = (i: number) => void;
/** platform/metrics.ts's API before (prom-client metrics handed out) or after (counting methods). */
interface MetricsEither {
  load(): void;
  countCall?(version: string, tool: string, upstream: string, outcome: string, principal?: object): void;
  observeAttempt?(upstream: string, outcome: string, seconds: number): void;
  requests?: { inc(labels: object): void };
  upstreamLatency?: { observe(labels: object, value: number): void };
}
const sources = { catalogTools: () => [], circuits: () => [], inFlight: () => 0 };
const recorderOptions = { recentCalls: 100, showArguments: false };
/** A named token's principal, as the face hands it over (checkouts before principals ignore it). */
const principal = { subject: 'alice', name: 'alice', kind: 'token', groups: [], scopes: [], named: true };

/** What one call does there, through that checkout's own API (before: labels objects; after: countCall & co). */
async function pathOf(root: string): Promise<Path> {
  const { Metrics } = (await import(pathToFileURL(resolve(root, 'src/platform/metrics.ts')).href)) as {
    Metrics: new (s: typeof sources, o: object) => MetricsEither;
  };
  const { CallRecorder } = (await import(pathToFileURL(resolve(root, 'src/console/recorder.ts')).href)) as {
    CallRecorder: new (o: typeof recorderOptions) => { record(call: object): void };
  };
  const metrics = new Metrics(sources, { defaultMetrics: false });
  metrics.load();
  const recorder = new CallRecorder(recorderOptions);
  const finished: Record<string, unknown> = {};
  if (metrics.countCall && metrics.observeAttempt) {
    const { countCall, observeAttempt } = { countCall: metrics.countCall.bind(metrics), observeAttempt: metrics.observeAttempt.bind(metrics) };
    return (i) => {
      const args = { message: 'hello from the bench' };
      const result = { content: [{ type: 'text', text: 'hello from the bench' }] };
      observeAttempt('default', 'success', 0.0004 + (i & 7) * 1e-5);
      countCall('2026-07-28', 'echo', 'default', 'success', principal);
      finished.tool = 'echo';
      finished.upstream = 'default';
      finished.revision = '2026-07-28';
      finished.outcome = 'success';
      finished.durationMs = 0.5 + (i & 7) * 0.01;
      finished.failed = false;
      finished.callId = 'c';
      finished.traceId = undefined;
      finished.principal = principal.name;
      finished.principalKind = principal.kind;
      finished.args = args;
      finished.result = result;
      recorder.record(finished);
    };
  }
  const { requests, upstreamLatency } = metrics as Required<MetricsEither>;
  return (i) => {
    const args = { message: 'hello from the bench' };
    const result = { content: [{ type: 'text', text: 'hello from the bench' }] };
    upstreamLatency.observe({ upstream: 'default', outcome: 'success' }, 0.0004 + (i & 7) * 1e-5);
    requests.inc({ method: 'tools/call', tool: 'echo', upstream: 'default', protocol_version: '2026-07-28', outcome: 'success' });
    const call = {
      tool: 'echo',
      upstream: 'default',
      version: '2026-07-28',
      outcome: 'success',
      durationMs: 0.5 + (i & 7) * 0.01,
      callId: 'c',
      traceId: undefined,
      args,
      reply: { result },
    };
    recorder.record({
      tool: call.tool,
      upstream: call.upstream,
      revision: call.version,
      outcome: call.outcome,
      durationMs: call.durationMs,
      failed: false,
      callId: call.callId,
      traceId: call.traceId,
      args: call.args,
      result: call.reply.result,
    });
  };
}

async function main(): Promise<void> {
  const before = process.argv[2];
  if (!before) throw new Error('usage: node --import tsx bench/record-path.ts <checkout of the build before>');
  const calls = Number(process.env.RECORD_CALLS ?? 200_000);
  const paths = { before: await pathOf(before), after: await pathOf('.') };
  const cpu: Record<keyof typeof paths, number[]> = { before: [], after: [] };
  for (const p of Object.values(paths)) for (let i = 0; i < calls; i++) p(i); // warm-up
  for (let round = 0; round < 7; round++) {
    const order: (keyof typeof paths)[] = round % 2 ? ['after', 'before'] : ['before', 'after'];
    for (const name of order) {
      const run = paths[name];
      const c0 = process.cpuUsage();
      for (let i = 0; i < calls; i++) run(i);
      const c = process.cpuUsage(c0);
      cpu[name].push((c.user + c.system) / calls);
    }
  }
  const [b, a] = [median(cpu.before), median(cpu.after)];
  process.stdout.write(
    `metrics and console record per call: before ${b.toFixed(3)} µs, after ${a.toFixed(3)} µs CPU (${(((a - b) / b) * 100).toFixed(0)} %), medians of 7 alternated rounds of ${calls} calls\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
