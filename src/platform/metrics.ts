/**
 * Prometheus metrics (prom-client), one registry per running bridge so that
 * several bridges in one process (tests) never share counters.
 *
 * prom-client is required when a metric is first touched, not imported: the
 * bridge answers `/readyz` without it and loads it in the face's warm-up
 * (`load()`), so its load time is not part of the start-up; nor of the first
 * calls after ready, which count in place (Tally) and keep their attempt
 * latencies until it is in (~150 M instructions with its default metrics:
 * bench/README.md, issue 39).
 *
 * The counters are prom-client's own, counted with `inc(labels)`. They were
 * kept in plain fields read at scrape time until issue 31: prom-client builds
 * a string of every label per call to find the series, but avoiding it saved
 * too little of a call to keep a copy of the counter
 * (bench/README.md#owned-copies-receipts-issue-31). The attempt histogram is observed through a child bound once
 * per (upstream, outcome), prom-client's own API for it.
 */
import { createRequire } from 'node:module';
import type { Counter, Histogram, Registry } from 'prom-client';
import type { CallOutcome } from '../core/call-outcomes.js';
import { principalLabel, type Principal } from '../core/principal.js';

const requirePromClient = createRequire(import.meta.url);

export interface MetricsSources {
  catalogTools(): { upstream: string; tools: number }[];
  circuits(): { upstream: string; state: 'closed' | 'open' | 'half_open' }[];
  inFlight(): number;
  /** OXP calls waiting in the bridge for a connection to their upstream (every one of upstream.connections busy). */
  queuedCalls?(): { upstream: string; calls: number }[];
  /** The audit trail's counts (records written, lost, failed writes), when it is on. */
  audit?(): { records: number; lost: number; writeErrors: number } | undefined;
  /** Whether the shared task store (Redis) answers, as this replica last found it; undefined without one. */
  taskStoreAvailable?(): boolean | undefined;
}

const CIRCUIT_VALUE = { closed: 0, half_open: 1, open: 2 } as const;

interface Built {
  registry: Registry;
  requests: Counter<'method' | 'tool' | 'upstream' | 'protocol_version' | 'outcome'>;
  principalCalls: Counter<'principal' | 'kind' | 'outcome'>;
  upstreamLatency: Histogram<'upstream' | 'outcome'>;
  retries: Counter<'upstream' | 'reason'>;
  rejections: Counter<'reason'>;
  limitStoreFailures: Counter;
  tasks: Counter<'state'>;
  taskRedrives: Counter;
  taskLeasesLost: Counter;
  taskGiveUps: Counter;
}

/** A histogram child: its labels bound once. */
type Observer = { observe(value: number): void };

/**
 * Counts by label values, kept in one Map per label and handed to a prom-client counter when it is scraped
 * (`collect`). prom-client's own `inc` hashes the label object into a string and returns an object on every call,
 * ~0.9 KB of every tools/call's garbage for the two call counters (bench/README.md, issue 39); a count here
 * allocates nothing once its series exists. As many series as prom-client would keep.
 */
/** One series of a Tally: its labels (made once) and its count. */
interface Series {
  labels: Record<string, string>;
  count: number;
}

class Tally {
  readonly #root = new Map<string, unknown>();
  /** Every series in the order it first counted (prom-client prints its series in that order). */
  readonly #series: Series[] = [];

  constructor(private readonly labelNames: readonly string[]) {}

  /** One more for these label values, in `labelNames` order. */
  add(...values: string[]): void {
    let level = this.#root;
    const last = values.length - 1;
    for (let i = 0; i < last; i++) {
      let next = level.get(values[i]!) as Map<string, unknown> | undefined;
      if (!next) level.set(values[i]!, (next = new Map()));
      level = next;
    }
    let series = level.get(values[last]!) as Series | undefined;
    if (!series) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((name, at) => (labels[name] = values[at]!));
      this.#series.push((series = { labels, count: 0 }));
      level.set(values[last]!, series);
    }
    series.count += 1;
  }

  /** Sets `counter` to the counts (at scrape time). */
  copyTo(counter: { reset(): void; inc(labels: Record<string, string>, value: number): void }): void {
    counter.reset();
    for (const { labels, count } of this.#series) counter.inc(labels, count);
  }
}

/**
 * At most this many attempts wait for prom-client (metrics.load(), the face's warm-up, comes within a second of
 * ready); past it an attempt loads it itself.
 */
const EARLY_ATTEMPTS = 1_000;

const REQUEST_LABELS = ['method', 'tool', 'upstream', 'protocol_version', 'outcome'] as const;
const PRINCIPAL_LABELS = ['principal', 'kind', 'outcome'] as const;

export class Metrics {
  #built: Built | undefined;
  /** upstream → outcome → the attempt histogram's child for them (outcomes are OXP outcome kinds: a few). */
  readonly #attempts = new Map<string, Map<string, Observer>>();
  /** `mcp_oxp_bridge_requests_total` and `mcp_oxp_bridge_principal_calls_total`, counted here (Tally). */
  readonly #requests = new Tally(REQUEST_LABELS);
  readonly #principalCalls = new Tally(PRINCIPAL_LABELS);
  /** Attempts observed before prom-client is in (the first calls after ready), observed once it is (built()). */
  readonly #early: { upstream: string; outcome: string; seconds: number }[] = [];

  constructor(
    private readonly sources: MetricsSources,
    private readonly options: { defaultMetrics: boolean } = { defaultMetrics: true },
  ) {}

  /** Loads prom-client and registers every metric, if not done yet. */
  load(): void {
    this.built();
  }

  private built(): Built {
    if (this.#built) return this.#built;
    this.#built = buildMetrics(this.sources, this.options, this.#requests, this.#principalCalls);
    for (const { upstream, outcome, seconds } of this.#early.splice(0)) this.observeAttempt(upstream, outcome, seconds);
    return this.#built;
  }

  get registry(): Registry {
    return this.built().registry;
  }

  /**
   * One MCP tools/call: `tool` is '(unknown)' and `upstream` '' when it never reached an upstream; `principal`
   * undefined when nobody authenticated. The principal is counted by its bounded label only (principalLabel).
   */
  countCall(revision: string, tool: string, upstream: string, outcome: CallOutcome, principal?: Principal): void {
    this.#requests.add('tools/call', tool, upstream, revision, outcome);
    this.#principalCalls.add(principalLabel(principal), principal?.kind ?? 'anonymous', outcome);
  }

  /** One MCP tools/list. */
  countList(revision: string, outcome: string): void {
    this.#requests.add('tools/list', '', '', revision, outcome);
  }

  /** One OXP POST /tools/call attempt's latency. */
  observeAttempt(upstream: string, outcome: string, seconds: number): void {
    if (!this.#built && this.#early.length < EARLY_ATTEMPTS) {
      this.#early.push({ upstream, outcome, seconds });
      return;
    }
    let byOutcome = this.#attempts.get(upstream);
    if (!byOutcome) this.#attempts.set(upstream, (byOutcome = new Map<string, Observer>()));
    let child = byOutcome.get(outcome);
    if (!child) byOutcome.set(outcome, (child = this.built().upstreamLatency.labels(upstream, outcome)));
    child.observe(seconds);
  }

  get retries(): Built['retries'] {
    return this.built().retries;
  }
  get rejections(): Built['rejections'] {
    return this.built().rejections;
  }
  get limitStoreFailures(): Built['limitStoreFailures'] {
    return this.built().limitStoreFailures;
  }

  /** A task this replica drives entered `state` (working at its creation, then input_required, completed, failed, cancelled). */
  countTask(state: string): void {
    this.built().tasks.inc({ state });
  }

  /** A task this replica took over after its runner's lease lapsed. */
  countRedrive(): void {
    this.built().taskRedrives.inc();
  }

  /** A task this replica was running, taken over by another replica. */
  countLeaseLost(): void {
    this.built().taskLeasesLost.inc();
  }

  /** A task taken over more than tasks.maxRedrives times, ended failed here. */
  countGiveUp(): void {
    this.built().taskGiveUps.inc();
  }
}

type PromClient = typeof import('prom-client');

/** Every metric, registered in the order /metrics lists them: Node's defaults, requests, the call metrics, then the gauges read at scrape time. */
function buildMetrics(sources: MetricsSources, options: { defaultMetrics: boolean }, requestTally: Tally, principalTally: Tally): Built {
  const promClient = requirePromClient('prom-client') as PromClient;
  const registry = new promClient.Registry();
  const registers = [registry];
  if (options.defaultMetrics) promClient.collectDefaultMetrics({ register: registry });
  const requests = registerRequestCounter(promClient, registers, requestTally);
  const principalCalls = registerPrincipalCounter(promClient, registers, principalTally);
  const built: Built = { registry, requests, principalCalls, ...registerCallMetrics(promClient, registers) };
  registerSourceGauges(promClient, registers, sources);
  registerAuditCounters(promClient, registers, sources);
  return built;
}

/** `mcp_oxp_bridge_requests_total`. */
function registerRequestCounter({ Counter }: PromClient, registers: Registry[], tally: Tally): Built['requests'] {
  return new Counter({
    name: 'mcp_oxp_bridge_requests_total',
    help: 'MCP tools/list and tools/call requests by method, tool, upstream, protocol version and outcome.',
    labelNames: REQUEST_LABELS,
    registers,
    collect() {
      tally.copyTo(this);
    },
  });
}

/**
 * `mcp_oxp_bridge_principal_calls_total`. Bounded: `principal` is a configured name or a kind (core/principal.ts,
 * principalLabel), so the series are (configured names + kinds) × outcomes.
 */
function registerPrincipalCounter({ Counter }: PromClient, registers: Registry[], tally: Tally): Built['principalCalls'] {
  return new Counter({
    name: 'mcp_oxp_bridge_principal_calls_total',
    help: 'MCP tools/call requests by principal (a configured token or API key name, else the kind of caller), kind and outcome.',
    labelNames: PRINCIPAL_LABELS,
    registers,
    collect() {
      tally.copyTo(this);
    },
  });
}

/** The metrics the bridge observes as calls and refusals happen. */
function registerCallMetrics({ Counter, Histogram }: PromClient, registers: Registry[]): Omit<Built, 'registry' | 'requests' | 'principalCalls'> {
  return {
    upstreamLatency: new Histogram({
      name: 'mcp_oxp_bridge_upstream_request_duration_seconds',
      help: 'Latency of each OXP POST /tools/call attempt, by upstream and outcome.',
      labelNames: ['upstream', 'outcome'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers,
    }),
    retries: new Counter({
      name: 'mcp_oxp_bridge_retries_total',
      help: 'Retried OXP call attempts, by upstream and the outcome that caused them.',
      labelNames: ['upstream', 'reason'],
      registers,
    }),
    rejections: new Counter({
      name: 'mcp_oxp_bridge_http_rejections_total',
      help: 'MCP HTTP requests refused before dispatch, by reason.',
      labelNames: ['reason'],
      registers,
    }),
    limitStoreFailures: new Counter({
      name: 'mcp_oxp_bridge_limit_store_failures_total',
      help: 'Limited calls whose counter store (Redis) could not be reached: each passed uncounted or was refused, per store.redis.onUnavailable.',
      registers,
    }),
    tasks: new Counter({
      name: 'mcp_oxp_bridge_tasks_total',
      help: 'MCP tasks this replica drove into each state: working (created), input_required, completed, failed, cancelled.',
      labelNames: ['state'],
      registers,
    }),
    taskRedrives: new Counter({
      name: 'mcp_oxp_bridge_task_redrives_total',
      help: "MCP tasks this replica took over after their runner's lease lapsed, sending the same OXP call again.",
      registers,
    }),
    taskLeasesLost: new Counter({
      name: 'mcp_oxp_bridge_task_leases_lost_total',
      help: 'MCP tasks this replica was running that another replica took over (their call stopped here).',
      registers,
    }),
    taskGiveUps: new Counter({
      name: 'mcp_oxp_bridge_task_giveups_total',
      help: 'MCP tasks taken over more than tasks.maxRedrives times, ended failed by this replica instead of run again.',
      registers,
    }),
  };
}

/** The gauges read from the bridge's state (MetricsSources) when /metrics is scraped, not kept up to date. */
function registerSourceGauges({ Gauge }: PromClient, registers: Registry[], sources: MetricsSources): void {
  new Gauge({
    name: 'mcp_oxp_bridge_catalog_tools',
    help: 'Tools in the current catalog, by upstream.',
    labelNames: ['upstream'],
    registers,
    collect() {
      this.reset();
      for (const c of sources.catalogTools()) this.set({ upstream: c.upstream }, c.tools);
    },
  });
  new Gauge({
    name: 'mcp_oxp_bridge_circuit_state',
    help: 'Circuit breaker state by upstream: 0 closed, 1 half-open, 2 open.',
    labelNames: ['upstream'],
    registers,
    collect() {
      this.reset();
      for (const c of sources.circuits()) this.set({ upstream: c.upstream }, CIRCUIT_VALUE[c.state]);
    },
  });
  new Gauge({
    name: 'mcp_oxp_bridge_upstream_queued_calls',
    help: 'OXP calls (plain and tasks) waiting in the bridge for a connection to their upstream: every one of upstream.connections is busy.',
    labelNames: ['upstream'],
    registers,
    collect() {
      this.reset();
      for (const q of sources.queuedCalls?.() ?? []) this.set({ upstream: q.upstream }, q.calls);
    },
  });
  new Gauge({
    name: 'mcp_oxp_bridge_task_store_up',
    help: 'Whether the shared task store (store.redis) answers this replica: 1 yes, 0 no (new tasks are refused meanwhile). Absent without one.',
    registers,
    collect() {
      this.reset();
      const available = sources.taskStoreAvailable?.();
      if (available !== undefined) this.set(available ? 1 : 0);
    },
  });
  new Gauge({
    name: 'mcp_oxp_bridge_in_flight_requests',
    help: 'MCP HTTP requests being served now.',
    registers,
    collect() {
      this.set(sources.inFlight());
    },
  });
}

/** The audit trail's counts, read from the sink when scraped: records, those lost (a full disk, a sink that cannot keep up), failed writes. */
function registerAuditCounters({ Counter }: PromClient, registers: Registry[], sources: MetricsSources): void {
  const counter = (name: string, help: string, read: (s: { records: number; lost: number; writeErrors: number }) => number) =>
    new Counter({
      name,
      help,
      registers,
      collect() {
        const stats = sources.audit?.();
        this.reset();
        if (stats) this.inc(read(stats));
      },
    });
  counter('mcp_oxp_bridge_audit_records_total', 'Audit records made (call decisions and reloads), lost ones included.', (s) => s.records);
  counter('mcp_oxp_bridge_audit_records_lost_total', 'Audit records that never reached the sink (failed writes, a full buffer).', (s) => s.lost);
  counter('mcp_oxp_bridge_audit_write_errors_total', 'Writes of the audit sink that failed.', (s) => s.writeErrors);
}
