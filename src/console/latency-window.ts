/**
 * Latency and error counts over a sliding window of fixed time slots, each a
 * log-scale histogram: recording is O(1) with no allocation (a slot is reset
 * in place when its time comes round again), and p50/p99 are read from the
 * bins. Each bin also sums its samples, and a percentile is the mean of the
 * bin holding it: exact when that bin holds one duration (a tool called once
 * shows its call's own duration, as logged), otherwise within the bin's span
 * (a factor of 2^(1/4), ±10 %), never outside the samples it holds.
 */

/** Bins start at 0.1 ms and grow by 2^(1/4): 88 bins reach past 300 s. */
const BINS = 88;
const BASE_MS = 0.1;
const PER_OCTAVE = 4;

export interface WindowStats {
  count: number;
  errors: number;
  /** Milliseconds; null without samples. */
  p50: number | null;
  p99: number | null;
}

export interface WindowSlot extends WindowStats {
  /** Start of the slot (ms since epoch). */
  start: number;
}

export interface WindowSnapshot {
  slotMs: number;
  slots: WindowSlot[];
  total: WindowStats & { ratePerSecond: number };
}

export class LatencyWindow {
  private readonly bins: Uint32Array;
  /** Per bin, the sum of its samples (ms). */
  private readonly sums: Float64Array;
  private readonly errors: Uint32Array;
  private readonly counts: Uint32Array;
  /** Which slot number (time / slotMs) each ring position holds now. */
  private readonly epochs: Float64Array;

  constructor(
    readonly slots: number,
    readonly slotMs: number,
  ) {
    this.bins = new Uint32Array(slots * BINS);
    this.sums = new Float64Array(slots * BINS);
    this.errors = new Uint32Array(slots);
    this.counts = new Uint32Array(slots);
    this.epochs = new Float64Array(slots).fill(-1);
  }

  record(now: number, durationMs: number, error: boolean): void {
    const epoch = Math.floor(now / this.slotMs);
    const at = epoch % this.slots;
    if (this.epochs[at] !== epoch) {
      this.epochs[at] = epoch;
      this.errors[at] = 0;
      this.counts[at] = 0;
      this.bins.fill(0, at * BINS, (at + 1) * BINS);
      this.sums.fill(0, at * BINS, (at + 1) * BINS);
    }
    this.counts[at]! += 1;
    if (error) this.errors[at]! += 1;
    const bin = at * BINS + binOf(durationMs);
    this.bins[bin]! += 1;
    this.sums[bin]! += durationMs;
  }

  /** The window as of `now`, oldest slot first (empty slots included, so a chart's time axis is regular). */
  snapshot(now: number): WindowSnapshot {
    const current = Math.floor(now / this.slotMs);
    const slots: WindowSlot[] = [];
    const all = { bins: new Uint32Array(BINS), sums: new Float64Array(BINS) };
    let count = 0;
    let errors = 0;
    for (let epoch = current - this.slots + 1; epoch <= current; epoch++) {
      const at = epoch % this.slots;
      const live = this.epochs[at] === epoch;
      const slot = live ? { bins: this.bins.subarray(at * BINS, (at + 1) * BINS), sums: this.sums.subarray(at * BINS, (at + 1) * BINS) } : undefined;
      const slotCount = live ? this.counts[at]! : 0;
      const slotErrors = live ? this.errors[at]! : 0;
      if (slot)
        for (let i = 0; i < BINS; i++) {
          all.bins[i]! += slot.bins[i]!;
          all.sums[i]! += slot.sums[i]!;
        }
      count += slotCount;
      errors += slotErrors;
      slots.push({
        start: epoch * this.slotMs,
        count: slotCount,
        errors: slotErrors,
        p50: slot ? percentile(slot, slotCount, 0.5) : null,
        p99: slot ? percentile(slot, slotCount, 0.99) : null,
      });
    }
    // The current slot is partly elapsed: the rate is over the time the window really covers.
    const coveredMs = (this.slots - 1) * this.slotMs + (now - current * this.slotMs);
    return {
      slotMs: this.slotMs,
      slots,
      total: { count, errors, p50: percentile(all, count, 0.5), p99: percentile(all, count, 0.99), ratePerSecond: count / Math.max(1, coveredMs / 1000) },
    };
  }
}

function binOf(ms: number): number {
  if (!(ms > BASE_MS)) return 0;
  return Math.min(BINS - 1, Math.floor(PER_OCTAVE * Math.log2(ms / BASE_MS)));
}

/** A duration as the console shows it: to 0.1 ms, as the bridge's log line and the audit trail write it. */
export function roundedMs(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/** The mean of the samples in the bin holding the q-th sample (ms, to 0.1 ms). */
function percentile(h: { bins: Uint32Array; sums: Float64Array }, count: number, q: number): number | null {
  if (count === 0) return null;
  const rank = Math.max(1, Math.ceil(q * count));
  let seen = 0;
  for (let i = 0; i < h.bins.length; i++) {
    seen += h.bins[i]!;
    if (seen >= rank) return roundedMs(h.sums[i]! / h.bins[i]!);
  }
  return null;
}
