/**
 * The console of `oxp-server`: its MCP servers, the OXP catalog made from
 * their tools (each OXP definition beside the MCP tool it came from), and the
 * calls the OXP face passed to them. Authentication is the OXP server's own
 * (an API key, or a JWT, as a bearer token); Host/Origin as the MCP front's
 * defaults: localhost names on a loopback bind, localhost origins.
 */
import type { RequestListener } from 'node:http';
import express from 'express';
import { isLoopbackHost } from '../platform/net/loopback.js';
import { localhostAllowedHostnames, localhostAllowedOrigins } from '../platform/net/host-origin.js';
import type { OxpToolEntry } from '../core/mcp-to-oxp.js';
import type { OxpAppOptions } from '../reverse/face/app.js';
import type { OxpServerAuth } from '../reverse/face/inbound-auth.js';
import type { McpUpstreams } from '../reverse/bridge/mcp-upstreams.js';
import type { ConsoleConfig } from './bridge-console.js';
import { MAX_LISTED_TOOLS } from './bridge-console.js';
import { CallRecorder, blankFinishedCall, type FinishedCall } from './recorder.js';
import { shownPrincipal } from './redact.js';
import { createConsoleRouter, type ConsoleAccess, type ConsoleApi } from './router.js';

export interface OxpServerConsole {
  /** For createOxpApp's options. */
  onCall: NonNullable<OxpAppOptions<OxpToolEntry>['onCall']>;
  /** The OXP app with the console mounted at /console in front of it. */
  wrap(app: RequestListener): RequestListener;
}

export function oxpServerConsole(upstreams: McpUpstreams, auth: OxpServerAuth, host: string, config: ConsoleConfig, version: string): OxpServerConsole {
  const recorder = new CallRecorder(config);
  const router = createConsoleRouter(oxpConsoleAccess(auth, host), oxpServerConsoleApi(upstreams, auth, config, version, recorder));
  return {
    onCall: callRecording(upstreams, recorder),
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

/** The OXP face's onCall: each finished call into the recorder. */
function callRecording(upstreams: McpUpstreams, recorder: CallRecorder): OxpServerConsole['onCall'] {
  // One object, filled per call: the recorder copies what it keeps (recorder.ts).
  const finished: FinishedCall = blankFinishedCall('oxp-1.0');
  return (c) => {
    finished.tool = toolId(c.tool);
    finished.upstream = upstreams.labelOf(c.tool.upstream);
    finished.outcome = c.outcome;
    finished.durationMs = c.durationMs;
    finished.failed = c.outcome === 'unavailable';
    finished.callId = c.callId;
    finished.traceId = c.traceId;
    finished.principal = c.principal.name;
    finished.principalKind = c.principal.kind;
    finished.args = c.input;
    finished.result = 'value' in c.reply ? { value: c.reply.value } : 'error' in c.reply ? { error: c.reply.error } : undefined;
    recorder.record(finished);
    finished.args = finished.result = undefined; // not kept past the call
  };
}

/** Who may use the console: the OXP server's own authentication, and the MCP front's Host/Origin defaults. */
function oxpConsoleAccess(auth: OxpServerAuth, host: string): ConsoleAccess {
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
function oxpServerConsoleApi(upstreams: McpUpstreams, auth: OxpServerAuth, config: ConsoleConfig, version: string, recorder: CallRecorder): ConsoleApi {
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
    upstreams: () => ({
      upstreams: upstreams.status().map((u) => ({
        name: u.label,
        state: u.state,
        circuit: null,
        ready: u.connected,
        tools: u.tools,
        transport: u.transport ?? null,
        protocolVersion: u.protocolVersion ?? null,
        lastRefresh: u.listedAt ? new Date(u.listedAt).toISOString() : null,
        lastError: u.lastError ?? null,
        window: recorder.upstreamWindow(u.label),
      })),
    }),
    tools: async (query) => {
      const q = query.toLowerCase();
      const entries = upstreams.tools().filter((e) => !q || `${toolId(e)}\n${e.mcpName}\n${e.mcpTool.description ?? ''}`.toLowerCase().includes(q));
      return {
        total: entries.length,
        tools: entries.slice(0, MAX_LISTED_TOOLS).map((e) => ({
          name: toolId(e),
          upstream: upstreams.labelOf(e.upstream) ?? null,
          mcpName: e.mcpName,
          title: e.mcpTool.title ?? null,
          description: e.mcpTool.description ?? '',
        })),
      };
    },
    tool: async (name) => {
      const entry = upstreams.tools().find((e) => toolId(e) === name);
      if (!entry) return undefined;
      return {
        name,
        upstream: upstreams.labelOf(entry.upstream) ?? null,
        inputSchema: entry.inputSchema,
        oxpDefinition: entry.definition,
        mcpTool: entry.mcpTool,
      };
    },
    calls: (limit) => ({ showArguments: config.showArguments, recent: recorder.recent(limit), tools: recorder.toolStats() }),
  };
}
