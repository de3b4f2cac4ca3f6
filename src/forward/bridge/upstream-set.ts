/**
 * The upstreams the bridge serves, and their merged catalog.
 *
 * The merged snapshot is recomputed only when some upstream's catalog
 * changed (snapshots are immutable, so identity says it), and the set can be
 * swapped as a whole on configuration reload: calls already running keep the
 * upstream they started with.
 */
import type { CatalogEntry } from '../../core/catalog.js';
import { mergeCatalogs } from '../../core/merge.js';
import { resolveToolSettings, type ToolCallSettings } from '../../core/tool-settings.js';
import { CatalogSnapshot, NoCatalogError } from './catalog-service.js';
import type { Upstream, UpstreamSettings } from './upstream.js';

export class UpstreamSet {
  private merged: { parts: readonly CatalogSnapshot[]; snapshot: CatalogSnapshot } | undefined;
  private readonly listeners = new Set<() => void>();
  private unsubscribes: (() => void)[] = [];
  /** Per catalog entry (entries are immutable, one per snapshot): resolved once. */
  private settingsOf = new WeakMap<CatalogEntry, ToolCallSettings>();

  /** @param tasksOffered whether MCP tasks are offered at all (`tasks.enabled`): tool lists then say each tool's taskSupport. */
  constructor(
    private upstreams: Upstream[],
    readonly tasksOffered = false,
  ) {
    this.subscribe();
  }

  /**
   * Whether some tool may have taskSupport `required` (an upstream's default, or a toolSettings entry): when not,
   * a plain call needs no look at its tool's task settings.
   */
  get mayRequireTasks(): boolean {
    return (this.requiresTasks ??= this.upstreams.some(
      (u) => u.settings.tasks.taskSupport === 'required' || u.settings.toolSettings.some((t) => t.taskSupport === 'required'),
    ));
  }

  private requiresTasks: boolean | undefined;

  /** A tool's call settings (task support, deadlines): its upstream's, with its own overrides (toolSettings). */
  toolSettings(entry: CatalogEntry): ToolCallSettings {
    let settings = this.settingsOf.get(entry);
    if (!settings) {
      const upstream = this.get(entry.upstream)?.settings;
      const base = upstream
        ? { taskSupport: upstream.tasks.taskSupport, callTimeoutMs: upstream.limits.callTimeoutMs, taskCallTimeoutMs: upstream.tasks.taskCallTimeoutMs }
        : { taskSupport: 'forbidden' as const, callTimeoutMs: 300_000, taskCallTimeoutMs: 300_000 };
      settings = resolveToolSettings(base, upstream?.toolSettings ?? [], { name: entry.name, oxpId: entry.tool.key });
      this.settingsOf.set(entry, settings);
    }
    return settings;
  }

  get all(): readonly Upstream[] {
    return this.upstreams;
  }

  get(name: string | undefined): Upstream | undefined {
    return name === undefined ? this.upstreams[0] : this.upstreams.find((u) => u.name === name);
  }

  /**
   * The merged catalog of every upstream that has loaded one. Throws only when none has: a NoCatalogError that says
   * the credentials were refused when every upstream refused them.
   */
  async snapshot(): Promise<CatalogSnapshot> {
    const failures: NoCatalogError[] = [];
    const settled = await Promise.all(
      this.upstreams.map((u) =>
        u.catalog.snapshot().catch((error: unknown) => {
          if (error instanceof NoCatalogError) failures.push(error);
          return undefined;
        }),
      ),
    );
    const parts = settled.filter((s): s is CatalogSnapshot => s !== undefined);
    if (parts.length === 0) {
      const refused = failures.length === this.upstreams.length && failures.every((f) => f.refusedStatus !== undefined);
      throw new NoCatalogError('no upstream catalog loaded', refused ? failures[0]!.refusedStatus : undefined);
    }
    const cached = this.merged;
    if (cached && cached.parts.length === parts.length && cached.parts.every((p, i) => p === parts[i])) return cached.snapshot;
    const upstreamOf = new Map(settled.map((s, i) => [s, this.upstreams[i]!]));
    const catalog = mergeCatalogs(
      parts.map((p) => {
        const u = upstreamOf.get(p)!;
        return { upstream: u.name, catalog: p.catalog, policy: u.settings.policy, ...(u.settings.prefix ? { prefix: u.settings.prefix } : {}) };
      }),
    );
    const taskSupportOf = this.tasksOffered ? (entry: CatalogEntry) => this.toolSettings(entry).taskSupport : undefined;
    const snapshot = new CatalogSnapshot(catalog, Math.max(...parts.map((p) => p.loadedAt)), taskSupportOf);
    this.merged = { parts, snapshot };
    return snapshot;
  }

  /**
   * The merged catalog without a promise when every upstream's own is fresh and the merge is of those very snapshots
   * (the common case of every call): `snapshot()`'s `Promise.all` over the upstreams cost each call more than a
   * kilobyte of garbage (bench/README.md#the-1000-session-memory-regression-51c1b07-what-the-heap-says).
   * `undefined`: ask `snapshot()`.
   */
  snapshotNow(): CatalogSnapshot | undefined {
    const cached = this.merged;
    if (cached === undefined || cached.parts.length !== this.upstreams.length) return undefined;
    for (let i = 0; i < this.upstreams.length; i++) if (this.upstreams[i]!.catalog.fresh() !== cached.parts[i]) return undefined;
    return cached.snapshot;
  }

  /** The merged catalog last computed, if any (no I/O: for records made after a call was resolved). */
  get lastSnapshot(): CatalogSnapshot | undefined {
    return this.merged?.snapshot;
  }

  /** Called after any upstream's catalog changed what clients see. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get status() {
    // A labelled upstream (the embedded demo toolkit) says what it is: its URL is a random loopback port.
    const upstreams = Object.fromEntries(this.upstreams.map((u) => [u.name, u.settings.label ? { ...u.status, label: u.settings.label } : u.status]));
    const list = Object.values(upstreams);
    return {
      // Ready when every upstream has a catalog and none is cut off by its circuit breaker.
      ready: list.every((s) => s.ready && s.circuit !== 'open'),
      tools: this.merged?.snapshot.catalog.entries.length ?? list.reduce((n, s) => n + s.tools, 0),
      upstreams,
    };
  }

  /**
   * A configuration reload: the upstreams `settings` asks for, keeping each one whose settings did not change (its pool
   * and catalog with it) and starting the new ones before the swap. Calls already running on a removed upstream
   * finish before its pool closes.
   */
  async reconcile(
    settings: readonly UpstreamSettings[],
    create: (settings: UpstreamSettings) => Upstream,
  ): Promise<{ started: Upstream[]; removed: Upstream[] }> {
    const kept = new Map(this.upstreams.map((u) => [JSON.stringify(u.settings), u]));
    const started: Upstream[] = [];
    const next = settings.map((s) => {
      const same = kept.get(JSON.stringify(s));
      if (same) return same;
      const created = create(s);
      started.push(created);
      return created;
    });
    await Promise.all(started.map((u) => u.start()));
    const removed = this.replace(next);
    for (const u of removed) void u.close();
    return { started, removed };
  }

  /** Swaps in a new set of upstreams (configuration reload); returns the ones no longer used. */
  replace(next: Upstream[]): Upstream[] {
    const removed = this.upstreams.filter((u) => !next.includes(u));
    // The same upstreams in the same order (a reload that changed something else): clients' tools are unchanged, say nothing.
    const unchanged = next.length === this.upstreams.length && next.every((u, i) => u === this.upstreams[i]);
    this.upstreams = next;
    if (unchanged) return removed;
    this.merged = undefined;
    this.settingsOf = new WeakMap();
    this.requiresTasks = undefined;
    this.subscribe();
    for (const listener of this.listeners) listener();
    return removed;
  }

  /** Shutdown: every pool closes now; calls still running (past the drain) are aborted, never waited for. */
  async close(): Promise<void> {
    for (const off of this.unsubscribes) off();
    await Promise.all(this.upstreams.map((u) => u.destroy()));
  }

  private subscribe(): void {
    for (const off of this.unsubscribes) off();
    this.unsubscribes = this.upstreams.map((u) =>
      u.catalog.onChange(() => {
        for (const listener of this.listeners) listener();
      }),
    );
  }
}
