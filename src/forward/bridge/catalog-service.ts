/**
 * Keeps the upstream catalog fresh: fetched at start, refreshed on a TTL,
 * served stale while a refresh runs, and kept when a refresh fails.
 * Per-revision projected tool lists are computed once per catalog snapshot.
 * Each load's end is told to `onAttempt` listeners (the upstream retries a
 * failed or incomplete one within seconds: upstream.ts).
 */
import { LRUCache } from 'lru-cache';
import { buildCatalog, type Catalog, type CatalogEntry } from '../../core/catalog.js';
import type { McpRevision } from '../../core/mcp-versions.js';
import type { McpTool } from '../../core/mcp-wire.js';
import { profileFor } from '../../core/mcp-versions.js';
import { toMcpTool } from '../../core/oxp-to-mcp.js';
import { projectTool } from '../../core/project.js';
import type { TaskSupport } from '../../core/tool-settings.js';
import { unmatchedToolKeys, type ToolPolicy } from '../../core/merge.js';
import { OxpListError, type OxpClient } from '../client/client.js';
import type { Logger } from '../../platform/log.js';
import { ATTR, publicUrl } from '../../platform/telemetry/attributes.js';
import { tracer, type TraceSpan } from '../../platform/telemetry/tracer.js';

/** One immutable catalog generation plus its lazily projected views. */
export class CatalogSnapshot {
  // Built on first use: an upstream's own snapshot is only merged, never listed, and a
  // 7,500-tool catalog's MCP tools are worth tens of megabytes.
  private canonical: McpTool[] | undefined;
  private readonly projected = new Map<McpRevision, McpTool[]>();

  /** @param taskSupportOf each tool's `execution.taskSupport` (2025-11-25 lists only); absent: tasks are not offered. */
  constructor(
    readonly catalog: Catalog,
    readonly loadedAt: number,
    private readonly taskSupportOf?: (entry: CatalogEntry) => TaskSupport,
  ) {}

  /** Tools in catalog order, projected for `revision`; computed once per revision. */
  toolsFor(revision: McpRevision): McpTool[] {
    let tools = this.projected.get(revision);
    if (!tools) {
      const profile = profileFor(revision);
      tools = (this.canonical ??= this.catalog.entries.map((e) => this.mcpTool(e))).map((t) => projectTool(t, profile));
      this.projected.set(revision, tools);
    }
    return tools;
  }

  entry(name: string): CatalogEntry | undefined {
    return this.catalog.byName.get(name);
  }

  private mcpTool(entry: CatalogEntry): McpTool {
    const tool = toMcpTool(entry);
    if (this.taskSupportOf) tool.execution = { taskSupport: this.taskSupportOf(entry) };
    return tool;
  }
}

export interface CatalogServiceOptions {
  ttlMs: number;
  /** The upstream's name, for spans. */
  upstream?: string;
  /** The policy the upstream's tools are published under: its keys that name no tool are said (once each). */
  policy?: ToolPolicy;
}

const KEY = 'catalog';

/**
 * How one load ended: a catalog, with how many of the tool server's own sources had not listed yet (`pending`, 0:
 * whole), or none, with the wait the server asked for.
 */
export type CatalogAttempt = { ok: true; pending: number } | { ok: false; retryAfterMs?: number };

/** No catalog was ever loaded; `refusedStatus` when the reason is the tool server refusing the bridge's credentials. */
export class NoCatalogError extends Error {
  constructor(
    message: string,
    readonly refusedStatus?: number,
  ) {
    super(message);
    this.name = 'NoCatalogError';
  }
}

export interface CatalogStatus {
  ready: boolean;
  tools: number;
  loadedAt?: string;
  /** The tool server's own sources that had not listed their tools yet (absent: none). */
  pending?: number;
  lastError?: string;
}

export class CatalogService {
  private readonly cache: LRUCache<string, CatalogSnapshot>;
  private current: CatalogSnapshot | undefined;
  private lastError: string | undefined;
  /** Refreshes failed in a row: the first (and a new reason) is an error line, the repeats debug, the recovery says how many. */
  private failedInARow = 0;
  /** The HTTP status of the last failed refresh when the tool server refused the bridge's credentials (401/403). */
  private refusedStatus: number | undefined;
  private readonly listeners = new Set<(snapshot: CatalogSnapshot) => void>();
  private readonly attemptListeners = new Set<(attempt: CatalogAttempt) => void>();
  /** Of the last catalog loaded: how many of the tool server's own sources had not listed their tools yet. */
  private pending = 0;
  /** The policy keys that named no tool at the last load (a key is said again only once it matched meanwhile). */
  private unmatchedKeys: ReadonlySet<string> = new Set();

  constructor(
    private readonly client: OxpClient,
    private readonly log: Logger,
    private readonly options: CatalogServiceOptions,
  ) {
    this.cache = new LRUCache<string, CatalogSnapshot>({
      max: 1,
      ttl: options.ttlMs,
      // Serve the previous catalog while a refresh runs, and keep it if the refresh fails.
      allowStale: true,
      allowStaleOnFetchRejection: true,
      noDeleteOnFetchRejection: true,
      fetchMethod: async (_key, _stale, { signal }) => this.load(signal),
    });
  }

  /** The current snapshot, refreshing when the TTL has passed. Throws (a NoCatalogError) only if no catalog was ever loaded. */
  async snapshot(): Promise<CatalogSnapshot> {
    const snap = await this.cache.fetch(KEY).catch(() => undefined);
    if (snap) return snap;
    throw new NoCatalogError(this.lastError ?? 'tool catalog not loaded', this.refusedStatus);
  }

  /**
   * The snapshot `snapshot()` would resolve to at once, when it needs no refresh (loaded, within the TTL, or a refresh
   * already running): no promise. The call path asks this first; `undefined` sends it to `snapshot()`.
   */
  fresh(): CatalogSnapshot | undefined {
    return this.current !== undefined && this.cache.getRemainingTTL(KEY) > 0 ? this.current : undefined;
  }

  /** Forces a reload now (start-up, or after the upstream said a tool is gone). */
  async refresh(): Promise<CatalogSnapshot> {
    const snap = await this.cache.fetch(KEY, { forceRefresh: true }).catch(() => undefined);
    if (snap) return snap;
    throw new NoCatalogError(this.lastError ?? 'tool catalog not loaded', this.refusedStatus);
  }

  /** Called after a refresh that changed what clients see (including the first load after failed ones); returns an unsubscribe function. */
  onChange(listener: (snapshot: CatalogSnapshot) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Told how each load ended (any load: the first, a periodic or forced refresh, one a call started); returns an unsubscribe function. */
  onAttempt(listener: (attempt: CatalogAttempt) => void): () => void {
    this.attemptListeners.add(listener);
    return () => this.attemptListeners.delete(listener);
  }

  /** A catalog was loaded (an empty one the server answered 200 for is loaded). */
  get ready(): boolean {
    return this.current !== undefined;
  }

  /** Whether the tool server said the last catalog is not whole yet (some of its own servers had not listed). */
  get incomplete(): boolean {
    return this.current !== undefined && this.pending > 0;
  }

  get status(): CatalogStatus {
    const status: CatalogStatus = { ready: this.ready, tools: this.current?.catalog.entries.length ?? 0 };
    if (this.current) status.loadedAt = new Date(this.current.loadedAt).toISOString();
    if (this.incomplete) status.pending = this.pending;
    if (this.lastError) status.lastError = this.lastError;
    return status;
  }

  /** The policy keys that named no tool this upstream published at the last load (`tools.rename.<name>`, sorted). */
  get unmatchedPolicyKeys(): readonly string[] {
    return [...this.unmatchedKeys];
  }

  /** Policy keys that name none of the tools just loaded do nothing: a warning, once each (again if one matched meanwhile). */
  private checkPolicyKeys(snap: CatalogSnapshot): void {
    if (!this.options.policy) return;
    const unmatched = unmatchedToolKeys(this.options.policy, snap.catalog);
    const fresh = unmatched.filter((k) => !this.unmatchedKeys.has(k));
    this.unmatchedKeys = new Set(unmatched);
    if (fresh.length)
      this.log.warn(
        { upstream_url: this.client.baseUrl, keys: fresh },
        'tool policy keys that name no tool this upstream publishes: they do nothing (see docs/production.md, Many upstreams)',
      );
  }

  private async load(signal: AbortSignal): Promise<CatalogSnapshot> {
    const started = Date.now();
    // A root span per refresh: refreshes are shared by every request, so they belong to none.
    const span = tracer().start('catalog refresh', { kind: 'client' });
    if (span.recording) this.describe(span);
    try {
      const { tools, warnings, pending } = await this.client.listTools(signal);
      for (const warning of warnings) this.log.warn({ upstream_url: this.client.baseUrl }, `catalog: ${warning}`);
      const snap = new CatalogSnapshot(buildCatalog(tools), Date.now());
      const previous = this.current;
      // A first load after failed attempts: clients that connected meanwhile saw no tools, so they are told.
      const recovered = previous === undefined && this.lastError !== undefined;
      this.current = snap;
      this.pending = pending;
      this.lastError = undefined;
      this.refusedStatus = undefined;
      const loaded = { upstream_url: this.client.baseUrl, tools: snap.catalog.entries.length, ms: Date.now() - started, ...(pending ? { pending } : {}) };
      this.log.info(this.failedInARow > 0 ? { ...loaded, failed_attempts: this.failedInARow } : loaded, 'catalog loaded');
      this.failedInARow = 0;
      this.checkPolicyKeys(snap);
      const changed = recovered || (previous !== undefined && !sameTools(previous, snap));
      if (changed) {
        this.log.info({ upstream_url: this.client.baseUrl, tools: snap.catalog.entries.length }, 'catalog changed');
        for (const listener of this.listeners) listener(snap);
      }
      if (span.recording) span.set({ [ATTR.httpStatus]: 200, [ATTR.tools]: snap.catalog.entries.length, [ATTR.outcome]: changed ? 'changed' : 'loaded' });
      this.tell({ ok: true, pending });
      return snap;
    } catch (error) {
      // In the bridge's own words: this text is served on /readyz. What the upstream said goes to debug logs only.
      const reason = error instanceof OxpListError ? error.reason : 'GET /tools: the answer could not be read';
      // An upstream that stays down is retried every few seconds: one error line when it fails (or fails otherwise),
      // not one per retry; /readyz and the `catalog loaded` line (failed_attempts) say the rest.
      const repeated = this.failedInARow > 0 && reason === this.lastError;
      this.failedInARow++;
      this.lastError = reason;
      this.refusedStatus = error instanceof OxpListError && error.credentialsRefused ? error.status : undefined;
      const failed = { upstream_url: this.client.baseUrl, err: reason };
      if (repeated) this.log.debug({ ...failed, failed_attempts: this.failedInARow }, 'catalog refresh failed again');
      else this.log.error(failed, 'catalog refresh failed');
      if (error instanceof Error && error.message !== this.lastError)
        this.log.debug({ upstream_url: this.client.baseUrl, detail: error.message }, 'catalog refresh failure detail');
      if (span.recording && error instanceof OxpListError && error.status !== undefined) span.set({ [ATTR.httpStatus]: error.status });
      span.fail('catalog_unavailable');
      this.tell(error instanceof OxpListError && error.retryAfterMs !== undefined ? { ok: false, retryAfterMs: error.retryAfterMs } : { ok: false });
      throw error;
    } finally {
      span.end();
    }
  }

  private tell(attempt: CatalogAttempt): void {
    for (const listener of this.attemptListeners) listener(attempt);
  }

  private describe(span: TraceSpan): void {
    const url = publicUrl(`${this.client.baseUrl}/tools`);
    span.set({
      [ATTR.httpMethod]: 'GET',
      [ATTR.upstream]: this.options.upstream,
      ...(url ? { [ATTR.urlFull]: url.full, [ATTR.serverAddress]: url.address, [ATTR.serverPort]: url.port } : {}),
    });
  }
}

function sameTools(a: CatalogSnapshot, b: CatalogSnapshot): boolean {
  const x = a.catalog.entries;
  const y = b.catalog.entries;
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) {
    if (x[i]!.name !== y[i]!.name || x[i]!.callId !== y[i]!.callId) return false;
  }
  // The definitions themselves (not their MCP rendering, which would build the tool lists).
  return JSON.stringify(x.map((e) => e.tool)) === JSON.stringify(y.map((e) => e.tool));
}
