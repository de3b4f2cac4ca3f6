/**
 * One round of issue 37's fault scenario on a running deployment (fault-deployment.ts), the load running all along
 * (fault-traffic.ts): Redis frozen (SIGSTOP) longer than tasks.leaseMs then thawed; Redis killed and restarted; one
 * replica SIGKILLed (its tasks re-driven by the others once their leases lapse), then started again; another sent
 * SIGTERM as a rolling update does, then started again. Then the load stops, every accepted task is read until it
 * ended, and the invariants (fault-invariants.ts) are checked on what was recorded. Each fault waits until a task's
 * OXP call is open, so it lands on work in flight; the pauses between faults set the scenario's length, no check
 * depends on them.
 *
 * Used by test/integration/faults.test.ts (one round) and bench/faults.ts (rounds for minutes).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { FAULT_TOKEN, type Deployment } from './fault-deployment.js';
import { checkInvariants, type Evidence, type Verdict } from './fault-invariants.js';
import { formatReport, tally, type Tally } from './fault-report.js';
import { seededRandom, Traffic } from './fault-traffic.js';

export interface RoundResult {
  verdicts: Verdict[];
  tally: Tally;
  /** The summary as printed: the timeline of faults, the counts, each invariant. */
  report: string;
  /** What the verdicts were drawn from (written out when one fails). */
  evidence: Evidence;
}

export interface RoundOptions {
  seed: number;
  /** Called with each line of the timeline as it happens (a long run prints them). */
  note?: (line: string) => void;
}

/** Log lines and nginx's error log already checked by an earlier round of this deployment. */
const checkedLogs = new WeakMap<Deployment, { lines: Set<string>; nginxChars: number }>();

export async function faultRound(deployment: Deployment, round: number, options: RoundOptions): Promise<RoundResult> {
  const started = Date.now();
  const timeline: string[] = [];
  const note = (line: string) => {
    const stamped = `+${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s  ${line}`;
    timeline.push(stamped);
    options.note?.(stamped);
  };
  const prefix = `r${round}-`;
  const nginx = { via: 'nginx' as const, url: deployment.nginx.url };
  const replicas = deployment.replicas.map((r) => ({ via: r.index, url: r.url }));
  const traffic = new Traffic(nginx, replicas, FAULT_TOKEN, seededRandom(options.seed + round), prefix);
  note(`load started (seed ${options.seed + round})`);
  traffic.start();
  try {
    await faults(deployment, traffic, round, prefix, note);
  } finally {
    await traffic.stop();
  }
  note(`load stopped; reading ${traffic.tasks.size} accepted tasks until they end`);
  await traffic.settleTasks(60_000);
  // The OXP calls still open (a re-drive) close before the spans are read.
  await waitFor(() => deployment.fixture.calls.every((s) => s.end !== undefined), 30_000);
  const seen = checkedLogs.get(deployment) ?? { lines: new Set<string>(), nginxChars: 0 };
  checkedLogs.set(deployment, seen);
  const logs = deployment.logs().filter((line) => !seen.lines.has(line));
  for (const line of logs) seen.lines.add(line);
  const nginxErrors = deployment.nginxErrors();
  const tasks = [...traffic.tasks.values()];
  const evidence: Evidence = {
    exchanges: traffic.ledger.exchanges,
    tasks,
    // The OXP calls of this round (a long run's earlier rounds were checked at their end).
    spans: deployment.fixture.calls.filter((s) => s.start >= started),
    events: deployment.events,
    ports: deployment.replicas.map((r) => r.port),
    nginxErrors: nginxErrors.slice(seen.nginxChars),
    logs,
  };
  const verdicts = checkInvariants(evidence);
  const refusedConnects = nginxErrors.slice(seen.nginxChars).match(/\(111: Connection refused\)/g)?.length ?? 0;
  note(`nginx logged ${refusedConnects} connects refused by a replica (it then tries the next)`);
  seen.nginxChars = nginxErrors.length;
  const counts = tally(traffic.ledger.exchanges, tasks, deployment.fixture.calls, (n) => n.startsWith(prefix));
  const report = formatReport(`fault round ${round}:\n${timeline.map((l) => `  ${l}`).join('\n')}`, counts, verdicts);
  return { verdicts, tally: counts, report, evidence };
}

async function faults(d: Deployment, traffic: Traffic, round: number, prefix: string, note: (line: string) => void): Promise<void> {
  const { leaseMs } = d.settings;
  const killed = round % 3;
  const rolled = (round + 1) % 3;
  const busy = async () => {
    await sleep(300);
    const open = () => d.fixture.calls.some((s) => s.end === undefined && String(s.input?.['nonce']).startsWith(`${prefix}t`));
    if (!(await waitFor(open, 15_000))) note('(no task call open at the OXP server after 15 s: the fault lands anyway)');
  };
  await busy();
  note(`Redis SIGSTOP for ${leaseMs * 2} ms (tasks.leaseMs ${leaseMs})`);
  d.redis.freeze();
  await sleep(leaseMs * 2);
  d.redis.thaw();
  note('Redis SIGCONT');
  await busy();
  note('Redis SIGKILL');
  await d.redis.stop();
  await sleep(1_000);
  await d.redis.start();
  note('Redis restarted (its append-only file kept every acknowledged write)');
  await busy();
  note(`replica ${killed} SIGKILL`);
  await d.kill(killed);
  // Started again at once, as an orchestrator would, while the scenario goes on; its tasks' leases lapse meanwhile
  // and the others re-drive them.
  const back = d.start(killed).then(() => note(`replica ${killed} started again`));
  await sleep(leaseMs * 2);
  await busy();
  // A call that takes 3 s on the replica about to be stopped: its drain lasts that long, and the call must be answered.
  const held = await holdCall(d, traffic, rolled);
  note(`replica ${rolled} SIGTERM (a rolling update)${held ? ', a 3 s call in flight on it' : ''}`);
  await d.terminate(rolled);
  note(`replica ${rolled} exited after its drain`);
  await Promise.all([back, d.start(rolled).then(() => note(`replica ${rolled} started again`)), held?.done]);
  await sleep(1_000);
}

/**
 * Starts a 3 s plain call straight to `replica` and resolves once the OXP server has it (a limit may refuse a few
 * first), with the call's end (wrapped: an async function's promise would adopt it and wait for the end).
 */
async function holdCall(d: Deployment, traffic: Traffic, replica: number): Promise<{ done: Promise<unknown> } | undefined> {
  const target = { via: replica, url: d.replicas[replica]!.url };
  for (let attempt = 0; attempt < 20; attempt++) {
    const { nonce, done } = traffic.slowCall(target, 3_000);
    let ended = false;
    void done.then(() => (ended = true));
    await waitFor(() => ended || d.fixture.calls.some((s) => s.input?.['nonce'] === nonce), 15_000);
    if (!ended) return { done };
    await sleep(200);
  }
  return undefined;
}

/** Polls `condition` every 50 ms; false if `timeoutMs` passed first. */
async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  for (const end = Date.now() + timeoutMs; Date.now() < end; await sleep(50)) if (condition()) return true;
  return condition();
}
