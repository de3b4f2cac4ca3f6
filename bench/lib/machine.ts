/**
 * The machine under the bench: which cores each party runs on, and how busy the machine is.
 *
 * Placement (`taskset`, where the machine has cores to give): the measured server — the bridge, the forwarder, the
 * native SDK server, the bare handler, one at a time under load — alone on the last core this process may use; the
 * upstream (the OXP server, the OTLP sink) on the one before it; the load generator (this process), the `cat` that
 * drains the bridge's stderr and anything else on the rest. On 2 cores: the measured server on core 1, everything
 * else on core 0. Parties that wait their turn share the measured core, idle. `BENCH_PIN=off` runs everything
 * unpinned; `BENCH_PIN=<measured>:<upstream>:<load>` (core lists as taskset reads them, e.g. `3:2:0-1`) places by hand.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';

export type Role = 'measured' | 'upstream' | 'load';

/** The cores this process may run on (its affinity, which a container's cpuset narrows), in order. */
function readAllowedCpus(): number[] {
  try {
    const m = /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return parseCpuList(m[1]!);
  } catch {
    // not Linux
  }
  return cpus().map((_, i) => i);
}

/** Read once, when this module loads: before pinSelf() narrows this process to the load cores. */
const ALLOWED = readAllowedCpus();

/** The cores the bench may use (as they were when it started). */
export function allowedCpus(): number[] {
  return ALLOWED;
}

/** `0-2,5` → [0, 1, 2, 5]. */
export function parseCpuList(list: string): number[] {
  return list.split(',').flatMap((part) => {
    const [a, b] = part.split('-').map(Number) as [number, number | undefined];
    return b === undefined ? [a] : Array.from({ length: b - a + 1 }, (_, i) => a + i);
  });
}

export type Placement = Record<Role, string>;

function hasTaskset(): boolean {
  return ['/usr/bin/taskset', '/bin/taskset', '/usr/local/bin/taskset'].some((p) => existsSync(p));
}

let cached: Placement | undefined | null = null;

/** Where each role runs (taskset core lists), or undefined: unpinned (`BENCH_PIN=off`, one core, no taskset). */
export function placement(): Placement | undefined {
  if (cached !== null) return cached;
  const setting = process.env.BENCH_PIN ?? 'auto';
  const available = allowedCpus();
  if (setting === 'off' || !hasTaskset() || available.length < 2) return (cached = undefined);
  if (setting !== 'auto') {
    const [measured, upstream, load] = setting.split(':');
    if (!measured || !upstream || !load) throw new Error(`BENCH_PIN=${setting}: expected off, auto or <measured>:<upstream>:<load>`);
    return (cached = { measured, upstream, load });
  }
  const n = available.length;
  const measured = String(available[n - 1]);
  if (n === 2) return (cached = { measured, upstream: String(available[0]), load: String(available[0]) });
  return (cached = { measured, upstream: String(available[n - 2]), load: available.slice(0, n - 2).join(',') });
}

/** `command args` as spawned for `role`: behind `taskset -c <cores>` when placed (taskset execs it: same pid). */
export function placed(role: Role, command: string, args: string[]): [string, string[]] {
  const p = placement();
  return p ? ['taskset', ['-c', p[role], command, ...args]] : [command, args];
}

/** Pins this process (the load generator), every thread of it, to the load cores. */
export function pinSelf(): void {
  const p = placement();
  if (p) execFileSync('taskset', ['-a', '-cp', p.load, String(process.pid)], { stdio: 'ignore' });
}

/** How the parties are placed, in words. */
export function placementLine(): string {
  const p = placement();
  return p
    ? `pinned (taskset): measured server on core ${p.measured}, upstream on ${p.upstream}, load generator and log drain on ${p.load}`
    : `unpinned (${process.env.BENCH_PIN === 'off' ? 'BENCH_PIN=off' : hasTaskset() ? 'fewer than 2 cores' : 'no taskset'})`;
}

/** Above this 1-minute load average per core at the start, a run's figures are not worth keeping. */
const BUSY_PER_CORE = 0.5;

/** The load average as printed under every table: `load average 0.12 / 0.30 / 0.25 (2 cores)`. */
export function loadLine(): string {
  return `load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' / ')} (${allowedCpus().length} cores)`;
}

/** The header every bench prints first: cores, placement, load; and a warning when the machine is busy. */
export function machineHeader(tool: string): string {
  const cores = allowedCpus().length;
  const busy = loadavg()[0]! > BUSY_PER_CORE * cores;
  const lines = [`${tool}: Node ${process.version}, ${cores} cores; ${placementLine()}; ${loadLine()} at the start`];
  if (busy)
    lines.push(
      `${tool}: WARNING: the machine is busy (1-minute load average above ${BUSY_PER_CORE} per core): CPU figures from this run are not valid; measure when nothing else runs`,
    );
  return lines.join('\n');
}
