/**
 * The console of `oxp-server`: its MCP servers, the OXP catalog made from
 * their tools (each OXP definition beside the MCP tool it came from), and the
 * calls the OXP face passed to them. Authentication is the OXP server's own
 * (an API key, or a JWT, as a bearer token); Host/Origin as the MCP face's
 * defaults: localhost names on a loopback bind, localhost origins.
 */
import type { RequestListener } from 'node:http';
import express from 'express';
import { isLoopbackHost } from '../platform/net/loopback.js';
import { localhostAllowedHostnames, localhostAllowedOrigins } from '../platform/net/host-origin.js';
import type { OxpToolEntry } from '../core/mcp-to-oxp.js';
import type { CallObserver } from '../calls/gate.js';
import { upstreamFailed } from '../core/call-outcomes.js';
import type { OxpServerReply } from '../core/oxp-wire.js';
import type { Principal } from '../core/principal.js';
import type { IncomingHttpHeaders } from 'node:http';
import { resolveToolVersion } from '../core/oxp-versioning.js';
import type { McpUpstreams } from '../reverse/bridge/mcp-upstreams.js';
import type { ConsoleConfig } from './bridge-console.js';
import { listings, MAX_LISTED_TOOLS } from './bridge-console.js';
import { callsView } from './outcome-words.js';
import { CallRecorder, blankFinishedCall, type FinishedCall } from './recorder.js';
import { shownPrincipal } from './redact.js';
import { createConsoleRouter, type ConsoleAccess, type ConsoleApi } from './router.js';

/** What the console needs of the OXP server's authentication (the OXP face's OxpServerAuth is one). */
export interface OxpConsoleAuth {
  /** Whether a credential is configured (the overview says which kind). */
  readonly required: boolean;
  /** The `WWW-Authenticate` challenge of a 401. */
  readonly challenge: string;
  check(headers: IncomingHttpHeaders): Promise<{ ok: true; principal?: Principal } | { ok: false }>;
}

export interface OxpServerConsole {
  /** Told by the call gate about every finished call (calls/gate.ts); records those a tool answered. */
  observer: CallObserver<OxpToolEntry, OxpServerReply>;
  /** The OXP app with the console mounted at /console in front of it. */
  wrap(app: RequestListener): RequestListener;
}

export function oxpServerConsole(upstreams: McpUpstreams, auth: OxpConsoleAuth, host: string, config: ConsoleConfig, version: string): OxpServerConsole {
  const recorder = new CallRecorder(config);
  const names = upstreamNames(upstreams);
  const router = createConsoleRouter(oxpConsoleAccess(auth, host), oxpServerConsoleApi(upstreams, names, auth, config, version, recorder));
  return {
    observer: callRecording(names, recorder),
    wrap: (app) => {
      const outer = express();
      outer.disable('x-powered-by');
      outer.use('/console', router);
      outer.use(app);
      return outer;
    },
  };
}

/** A tool as the console names it: its OXP id and version. */
const toolId = (e: OxpToolEntry) => `${e.key}@${e.version}`;

/**
 * The name of the upstream at an index, as /health and the tool ids name it: its toolkit (configured, or derived from
 * the server's name once it has answered), else until then its log label (a URL, a command). Read per call: the names
 * are worked out again only when the catalog changes (a new array then), so recording allocates nothing.
 */
export function upstreamNames(upstreams: McpUpstreams): (index: number) => string | undefined {
  let seen: readonly OxpToolEntry[] | undefined;
  let toolkits: (string | null)[] = [];
  return (index) => {
    const catalog = upstreams.tools();
    if (catalog !== seen) {
      seen = catalog;
      toolkits = (upstreams.health().upstreams as { toolkit: string | null }[]).map((u) => u.toolkit);
    }
    return toolkits[index] ?? upstreams.labelOf(index);
  };
}

/**
 * Every finished call into the recorder, run or refused (denied, limited, invalid input, an unknown id), as the
 * forward console records them: a call whose tool did not resolve under the id it asked for, with no upstream.
 */
function callRecording(nameOf: (index: number) => string | undefined, recorder: CallRecorder): OxpServerConsole['observer'] {
  // One object, filled per call: the recorder copies what it keeps (recorder.ts).
  const finished: FinishedCall = blankFinishedCall('oxp-1.0');
  return {
    callFinished: (c) => {
      const { tool, reply } = c;
      finished.tool = tool ? toolId(tool) : (c.oxpId ?? '');
      finished.upstream = tool ? nameOf(tool.upstream) : undefined;
      finished.outcome = c.outcome;
      finished.durationMs = c.durationMs ?? 0;
      finished.failed = upstreamFailed(c.outcome);
      finished.callId = c.callId;
      finished.traceId = c.traceId;
      finished.principal = c.principal?.name;
      finished.principalKind = c.principal?.kind;
      finished.args = c.args;
      finished.result = reply === undefined ? undefined : 'value' in reply ? { value: reply.value } : 'error' in reply ? { error: reply.error } : undefined;
      recorder.record(finished);
      finished.args = finished.result = undefined; // not kept past the call
    },
  };
}

/** Who may use the console: the OXP server's own authentication, and the MCP face's Host/Origin defaults. */
function oxpConsoleAccess(auth: OxpConsoleAuth, host: string): ConsoleAccess {
  return {
    authenticate: async (req) => {
      const verdict = await auth.check(req.headers);
      return verdict.ok
        ? { ok: true, principal: verdict.principal }
        : {
            ok: false,
            status: 401,
            headers: { 'content-type': 'application/json', 'www-authenticate': auth.challenge },
            body: JSON.stringify({ error: 'Unauthorized' }),
          };
    },
    allowedHosts: isLoopbackHost(host) ? localhostAllowedHostnames() : undefined,
    allowedOrigins: localhostAllowedOrigins(),
  };
}

/** What the console shows: the MCP servers, the OXP catalog (each definition beside the MCP tool it came from), the recorded calls. */
function oxpServerConsoleApi(
  upstreams: McpUpstreams,
  nameOf: (index: number) => string | undefined,
  auth: OxpConsoleAuth,
  config: ConsoleConfig,
  version: string,
  recorder: CallRecorder,
): ConsoleApi {
  return {
    overview: (caller) => ({
      command: 'oxp-server',
      server: { name: 'mcp-oxp-bridge oxp-server', version },
      revisions: ['oxp-1.0'],
      endpoint: 'tools/call',
      auth: auth.required ? 'api-key or jwt' : 'none',
      showArguments: config.showArguments,
      caller: caller ? shownPrincipal(caller) : null,
    }),
    upstreams: () => ({ upstreams: upstreamRows(upstreams, nameOf, recorder) }),
    tools: async (query) => {
      const q = query.toLowerCase();
      const entries = upstreams.tools().filter((e) => !q || `${toolId(e)}\n${e.mcpName}\n${e.mcpTool.description ?? ''}`.toLowerCase().includes(q));
      return {
        total: entries.length,
        tools: entries.slice(0, MAX_LISTED_TOOLS).map((e) => ({
          name: toolId(e),
          upstream: nameOf(e.upstream) ?? null,
          mcpName: e.mcpName,
          title: e.mcpTool.title ?? null,
          description: e.mcpTool.description ?? '',
        })),
        upstreams: listings(upstreams.status().map((u, i) => ({ name: nameOf(i) ?? u.label, listed: u.listedAt !== undefined, lastError: u.lastError }))),
      };
    },
    tool: async (name) => {
      const entry = toolNamed(upstreams.tools(), name);
      if (!entry) return undefined;
      return {
        name: toolId(entry),
        upstream: nameOf(entry.upstream) ?? null,
        inputSchema: entry.inputSchema,
        oxpDefinition: entry.definition,
        mcpTool: entry.mcpTool,
      };
    },
    calls: (limit) => callsView(recorder, config.showArguments, limit),
  };
}

/** Each MCP server's state, named as /health names it, and its recent calls' window. */
function upstreamRows(upstreams: McpUpstreams, nameOf: (index: number) => string | undefined, recorder: CallRecorder) {
  return upstreams.status().map((u, index) => ({
    name: nameOf(index) ?? u.label,
    state: u.state,
    circuit: null,
    ready: u.connected,
    // One count: the tools it publishes over OXP (what Tools lists, and /health); `listed`: what the server listed.
    tools: published(upstreams.tools(), index),
    listed: u.listedAt !== undefined ? u.tools : null,
    transport: u.transport ?? null,
    protocolVersion: u.protocolVersion ?? null,
    lastRefresh: u.listedAt ? new Date(u.listedAt).toISOString() : null,
    lastError: u.lastError ?? null,
    window: recorder.upstreamWindow(nameOf(index) ?? u.label),
  }));
}

/** The tools the upstream at `index` publishes over OXP. */
function published(catalog: readonly OxpToolEntry[], index: number): number {
  let n = 0;
  for (const e of catalog) if (e.upstream === index) n++;
  return n;
}

/** A tool by its id as OXP resolves one (core/oxp-versioning.ts): `Toolkit.Tool@x.y.z`, `@x`, or without a version its latest. */
export function toolNamed(catalog: readonly OxpToolEntry[], name: string): OxpToolEntry | undefined {
  const resolved = resolveToolVersion(name, (key) => {
    const versions = catalog.filter((e) => e.key === key).map((e) => e.version);
    return versions.length ? versions : undefined;
  });
  return resolved && catalog.find((e) => e.key === resolved.key && e.version === resolved.version);
}
