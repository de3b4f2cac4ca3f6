/**
 * The fault test's steady load (fault-load.ts records it): loops of plain tools/call and of task creations through
 * nginx, and one loop straight to each replica (so a connection a replica refuses is seen as its own, not hidden by
 * nginx trying the next one). Some accepted tasks are cancelled by the caller a moment after their creation. At the
 * end, `settleTasks` reads every accepted task until it ended, then its result, then its status once more.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { FAULT_TOOL } from './fault-deployment.js';
import { createdTask, exchangeRpc, Ledger, type Exchange, type ExchangeKind, type TaskTrack, type Target } from './fault-load.js';

export const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** Small deterministic random numbers (mulberry32), so a failing run's load can be told again by its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Traffic {
  readonly ledger = new Ledger();
  readonly tasks = new Map<string, TaskTrack>();
  private running = false;
  private loops: Promise<void>[] = [];
  private readonly cancels = new Set<Promise<unknown>>();
  private count = 0;

  constructor(
    private readonly nginx: Target,
    private readonly replicas: readonly Target[],
    private readonly token: string,
    private readonly random: () => number,
    /** Prefix of this traffic's nonces (a round of the long run has its own). */
    private readonly prefix: string,
  ) {}

  start(): void {
    this.running = true;
    const n = this.nginx;
    this.loops = [this.loop(n, 'plain'), this.loop(n, 'plain'), this.loop(n, 'task'), this.loop(n, 'task'), ...this.replicas.map((r) => this.loop(r, 'mixed'))];
  }

  /** Stops the loops and waits for their last requests (and the cancels they sent). */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
    await Promise.all(this.cancels);
  }

  /** Reads every accepted task through nginx until it ended (or `timeoutMs` passed), then its result and its status again. */
  async settleTasks(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const tracks = [...this.tasks.values()];
    await inBatches(tracks, 4, async (track) => {
      while (Date.now() < deadline && !TERMINAL.has(await this.read(track, 'get'))) await sleep(200);
    });
    await inBatches(tracks, 4, async (track) => {
      if (track.seen.at(-1)?.status === 'completed') await this.read(track, 'result');
      await this.read(track, 'get');
    });
  }

  private async loop(target: Target, what: 'plain' | 'task' | 'mixed'): Promise<void> {
    while (this.running) {
      const kind = what === 'mixed' ? (this.random() < 0.5 ? 'plain' : 'task') : what;
      const exchange = kind === 'plain' ? await this.plainCall(target) : await this.createTask(target);
      // A refusal answers at once: a pause keeps a loop from spinning on it (or on a replica that is down).
      await sleep(exchange.transportError ? 100 : kind === 'task' ? 150 + this.random() * 300 : 30 + this.random() * 100);
    }
  }

  private nonce(kind: 'p' | 't'): string {
    return `${this.prefix}${kind}${++this.count}-${Math.floor(this.random() * 1e9).toString(36)}`;
  }

  /** One plain call of `ms` to `target`, beside the loops (a call a drain must let finish). */
  slowCall(target: Target, ms: number): { nonce: string; done: Promise<Exchange> } {
    const nonce = this.nonce('p');
    const args = { nonce, ms };
    return {
      nonce,
      done: exchangeRpc(this.ledger.next('plain', target.via, { nonce }), target, this.token, 'tools/call', { name: FAULT_TOOL, arguments: args }),
    };
  }

  private plainCall(target: Target): Promise<Exchange> {
    const nonce = this.nonce('p');
    const ms = Math.round(100 + this.random() * 1_100);
    return exchangeRpc(this.ledger.next('plain', target.via, { nonce }), target, this.token, 'tools/call', { name: FAULT_TOOL, arguments: { nonce, ms } });
  }

  private async createTask(target: Target): Promise<Exchange> {
    const nonce = this.nonce('t');
    const ms = Math.round(1_500 + this.random() * 2_000);
    const params = { name: FAULT_TOOL, arguments: { nonce, ms }, task: { ttl: 1_800_000 } };
    const exchange = await exchangeRpc(this.ledger.next('task', target.via, { nonce }), target, this.token, 'tools/call', params);
    const task = createdTask(exchange);
    if (!task) return exchange;
    exchange.taskId = task.taskId;
    const track: TaskTrack = { taskId: task.taskId, nonce, createdAt: exchange.start, seen: [{ at: exchange.end!, status: task.status }] };
    this.tasks.set(task.taskId, track);
    // One task in four is cancelled by its caller, while it runs or about to.
    if (this.random() < 0.25) {
      const cancel = sleep(100 + this.random() * 1_200).then(() => this.cancel(track));
      this.cancels.add(cancel);
      void cancel.finally(() => this.cancels.delete(cancel));
    }
    return exchange;
  }

  private async cancel(track: TaskTrack): Promise<void> {
    track.cancelSentAt = Date.now();
    const status = await this.read(track, 'cancel');
    if (status) track.cancelAnswer = status;
  }

  /** One task query through nginx; the status it read ('' if none), added to the track. */
  private async read(track: TaskTrack, kind: Extract<ExchangeKind, 'get' | 'result' | 'cancel'>): Promise<string> {
    const method = kind === 'get' ? 'tasks/get' : kind === 'cancel' ? 'tasks/cancel' : 'tasks/result';
    const exchange = this.ledger.next(kind, this.nginx.via, { nonce: track.nonce, taskId: track.taskId });
    await exchangeRpc(exchange, this.nginx, this.token, method, { taskId: track.taskId });
    const result = exchange.answers.length === 1 ? (exchange.answers[0]!.result as Record<string, unknown> | undefined) : undefined;
    if (kind === 'result') {
      if (result) {
        track.resultText = JSON.stringify(result.content ?? result);
        const status = result.isError ? 'failed' : 'completed';
        track.seen.push({ at: exchange.end!, status });
        return status;
      }
      return '';
    }
    const status = typeof result?.status === 'string' ? result.status : '';
    if (status) track.seen.push({ at: exchange.end!, status });
    if (status && typeof result?.statusMessage === 'string') track.statusMessage = result.statusMessage;
    return status;
  }
}

async function inBatches<T>(items: readonly T[], width: number, each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await each(items[next++]!);
  };
  await Promise.all(Array.from({ length: width }, worker));
}
