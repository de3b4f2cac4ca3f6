/**
 * The console of the MCP bridge: its data (upstreams, merged catalog, calls)
 * and the recorder hooked into the bridge. Tool JSON per revision comes from
 * the catalog snapshot's own projections (the very objects tools/list
 * sends) and core/project.ts, never from a copy of their rules.
 */
import type express from 'express';
import type { Bridge } from '../forward/bridge/bridge.js';
import type { CatalogSnapshot } from '../forward/bridge/catalog-service.js';
import type { CatalogEntry } from '../core/catalog.js';
import type { Metrics } from '../platform/metrics.js';
import { isPlainObject } from '../core/json.js';
import { MCP_REVISIONS, profileFor, type McpRevision } from '../core/mcp-versions.js';
import type { McpCallToolResult } from '../core/mcp-wire.js';
import { projectCallToolResult, projectListToolsResult } from '../core/project.js';
import { encodeModernResult, SERVER_INFO_META_KEY } from '../core/mcp-encode.js';
import type { CallRecorder, RecorderOptions } from './recorder.js';
import { recordBridgeCalls } from './bridge-calls.js';
import { callsView } from './outcome-words.js';
import { createConsoleRouter, type ConsoleAccess, type ConsoleApi, type ConsoleAuthOutcome, type Rendered, type ToolsAs } from './router.js';
import type { Principal } from '../core/principal.js';
import { entriesAs, principalChoices, principalFor } from './tools-as.js';
import { shownPrincipal } from './redact.js';

export interface ConsoleConfig extends RecorderOptions {
  enabled: boolean;
}

/** What the console needs of the MCP endpoint's authentication (the MCP face's InboundAuth is one). */
export interface BridgeConsoleAuth {
  /** The `Authorization` header's verdict, as /mcp gives it. */
  authenticate(authorization: string | undefined): ConsoleAuthOutcome | Promise<ConsoleAuthOutcome>;
  /** `none`, `bearer` or `oauth`, as the overview shows it. */
  readonly mode: string;
  /** The configured principals the Tools view can show the catalog as. */
  namedPrincipals(): readonly Principal[];
}

/** Tools listed per search answer. */
export const MAX_LISTED_TOOLS = 500;

/** Mounts the console at /console on the MCP face's app, with /mcp's authentication and Host/Origin lists. */
export function mountBridgeConsole(
  app: express.Express,
  bridge: Bridge,
  identity: { name: string; version: string },
  face: { auth: BridgeConsoleAuth; allowedHosts: string[] | undefined; allowedOrigins: string[]; metrics?: Metrics | undefined; config: ConsoleConfig },
): void {
  const access = {
    authenticate: async (req: { headers: { authorization?: string | undefined } }) => face.auth.authenticate(req.headers.authorization),
    allowedHosts: face.allowedHosts,
    allowedOrigins: face.allowedOrigins,
    authMode: face.auth.mode,
    refused: (reason: string) => face.metrics?.rejections.inc({ reason }),
    named: face.auth.namedPrincipals(),
  };
  app.use('/console', createBridgeConsole(bridge, identity, access, face.config));
}

export function createBridgeConsole(
  bridge: Bridge,
  identity: { name: string; version: string },
  access: ConsoleAccess & { authMode: string; named?: readonly Principal[] },
  config: ConsoleConfig,
): express.Router {
  // The hook is in since the MCP pipeline loaded (bridge-calls.ts): this takes the same recorder.
  const recorder = recordBridgeCalls(bridge, config);
  return createConsoleRouter(access, bridgeConsoleApi(bridge, identity, { authMode: access.authMode, named: access.named ?? [] }, recorder));
}

export function bridgeConsoleApi(
  bridge: Bridge,
  identity: { name: string; version: string },
  auth: { authMode: string; named: readonly Principal[] },
  recorder: CallRecorder,
): ConsoleApi {
  const snapshot = () => bridge.upstreams.snapshot().catch(() => undefined);
  return {
    overview: (caller) => ({
      command: 'bridge',
      // Only these two: the identity object also holds the requestState key.
      server: { name: identity.name, version: identity.version },
      revisions: MCP_REVISIONS,
      endpoint: 'mcp',
      auth: auth.authMode,
      showArguments: recorder.options.showArguments,
      // Who is asking, as the policy sees it: the caller's own principal (the page and `doctor --url` show it).
      caller: shownPrincipal(bridge.access.principalOf(caller)),
      asPrincipal: true,
    }),
    upstreams: () => ({ upstreams: upstreamRows(bridge, recorder) }),
    tools: async (query, as) =>
      toolRows(bridge, (await snapshot())?.catalog.entries ?? [], query, as && { ...as, principal: principalFor(as, bridge, auth.named) }),
    principals: () => principalChoices(bridge, auth.named),
    tool: async (name) => toolAsListed(bridge, identity, await snapshot(), name),
    calls: (limit) => callsView(recorder, recorder.options.showArguments, limit),
    render: async (name, result) => renderAsSent(identity, (await snapshot())?.entry(name), name, result),
  };
}

/** The catalog's tools matching a search, all of them or as one principal sees them (tools-as.ts). */
function toolRows(bridge: Bridge, all: readonly CatalogEntry[], query: string, as: (ToolsAs & { principal: Principal }) | undefined) {
  const q = query.toLowerCase();
  const entries = all.filter((e) => !q || `${e.name}\n${e.callId}\n${e.tool.title ?? ''}\n${e.tool.description ?? ''}`.toLowerCase().includes(q));
  const upstreams = listings(bridge.upstreams.all.map((u) => ({ name: u.name, listed: u.status.ready, lastError: u.status.lastError })));
  const row = (e: CatalogEntry) => ({
    name: e.name,
    upstream: e.upstream ?? null,
    oxpId: e.callId,
    title: e.tool.title ?? e.tool.name ?? null,
    description: e.tool.description ?? '',
  });
  if (!as) return { total: entries.length, tools: entries.slice(0, MAX_LISTED_TOOLS).map(row), upstreams };
  const { shown, visible, hidden } = entriesAs(bridge, entries, as.principal, as.hidden);
  return {
    total: shown.length,
    tools: shown.slice(0, MAX_LISTED_TOOLS).map((s) => ({ ...row(s.entry), access: s.access })),
    as: { ...shownPrincipal(as.principal), visible, hidden, hiddenShown: as.hidden },
    upstreams,
  };
}

/**
 * How the upstreams' tool lists stand, beside every tools answer: an empty or short list says why (those that have
 * not listed their tools yet, each with its last error).
 */
export function listings(upstreams: readonly { name: string; listed: boolean; lastError?: string | undefined }[]) {
  const waiting = upstreams.filter((u) => !u.listed).map((u) => ({ name: u.name, lastError: u.lastError ?? null }));
  return { total: upstreams.length, listed: upstreams.length - waiting.length, waiting };
}

/** Each upstream's state, and its recent calls' window. */
function upstreamRows(bridge: Bridge, recorder: CallRecorder) {
  return bridge.upstreams.all.map((u) => {
    const status = u.status;
    return {
      name: u.name,
      // What it is where the name and URL do not say: the embedded demo toolkit.
      ...(u.settings.label ? { label: u.settings.label } : {}),
      url: publicUrl(u.settings.url),
      ready: status.ready,
      circuit: status.circuit,
      tools: status.tools,
      lastRefresh: status.loadedAt ?? null,
      lastError: status.lastError ?? null,
      window: recorder.upstreamWindow(u.name),
    };
  });
}

/** One tool, as tools/list sends it to each MCP revision; undefined when there is no such tool (or no catalog). */
function toolAsListed(bridge: Bridge, identity: { name: string; version: string }, snap: CatalogSnapshot | undefined, name: string) {
  const entry = snap?.entry(name);
  if (!snap || !entry) return undefined;
  const at = snap.catalog.entries.indexOf(entry);
  const server = { name: identity.name, version: identity.version };
  const revisions = Object.fromEntries(
    MCP_REVISIONS.map((v) => [
      v,
      asSent('tools/list', projectListToolsResult({ tools: [snap.toolsFor(v)[at]!], ttlMs: bridge.listTtlMs, cacheScope: 'public' }, profileFor(v)), v, server),
    ]),
  );
  return { name, upstream: entry.upstream ?? null, oxpId: entry.callId, inputSchema: entry.tool.inputSchema, revisions };
}

/** A tools/call result the page got, as each MCP revision receives it (the console's "try a tool"). */
function renderAsSent(identity: { name: string; version: string }, entry: CatalogEntry | undefined, name: string, result: unknown): Rendered {
  if (!entry) return { ok: false, status: 404, message: `no tool ${name}` };
  if (!isCallResult(result)) return { ok: false, status: 400, message: 'result must be a tools/call result: an object with a content array of typed blocks' };
  const server = { name: identity.name, version: identity.version };
  const made = withoutServerInfo(result);
  return {
    ok: true,
    value: {
      revisions: Object.fromEntries(
        MCP_REVISIONS.map((v) => [v, asSent('tools/call', projectCallToolResult(made, profileFor(v), entry.tool.outputSchema), v, server)]),
      ),
    },
  };
}

/** A projected result as the face sends it: 2026-07-28 answers also carry the server's identity in `_meta`. */
function asSent(method: string, result: object, revision: McpRevision, server: { name: string; version: string }): unknown {
  return profileFor(revision).era === 'modern' ? encodeModernResult(method, result as Record<string, unknown>, server) : result;
}

/** The answer as the bridge made it, before the 2026-07-28 face stamped its identity into `_meta`. */
function withoutServerInfo(result: McpCallToolResult): McpCallToolResult {
  if (!isPlainObject(result._meta) || !(SERVER_INFO_META_KEY in result._meta)) return result;
  const { [SERVER_INFO_META_KEY]: _stamped, ...meta } = result._meta;
  const { _meta: _dropped, ...rest } = result;
  return Object.keys(meta).length ? { ...rest, _meta: meta } : rest;
}

/** What a tools/call answer must look like before the projection reads it. */
function isCallResult(value: unknown): value is McpCallToolResult {
  return (
    isPlainObject(value) &&
    Array.isArray(value.content) &&
    value.content.length <= 10_000 &&
    value.content.every((b) => isPlainObject(b) && typeof b.type === 'string')
  );
}

/** The upstream's URL without credentials or query (which may carry keys). */
function publicUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}
