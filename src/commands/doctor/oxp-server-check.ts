/**
 * `doctor` on a configuration that starts the oxp-server (`oxpServer.enabled`): checked as the `oxp-server` command
 * would run it — its flags and OXP_SERVER_* variables, what it refuses at start (no MCP server, an exposed endpoint
 * without keys, unreadable named keys) — then that oxp-server started in this process on a private loopback port,
 * without its OXP clients' authentication (nothing but this process reaches it), each MCP server connected once,
 * `GET /tools` as an OXP client reads it, and one `POST /tools/call` if `--call` names a tool id.
 */
import type { BridgeConfig } from '../../config/load.js';
import { isPlainObject, type JsonObject } from '../../core/json.js';
import { createLogger } from '../../platform/log.js';
import { VERSION } from '../../platform/version.js';
import { PROBE_TIMEOUT_MS } from './mcp-probe.js';
import type { StepReport } from './report.js';

/** What the checks need of the doctor's command line. */
export interface OxpServerCheck {
  call?: string;
  args: JsonObject;
  token?: string;
}

/** Runs the checks of the configured oxp-server; the report says each step. */
export async function checkOxpServer(report: StepReport, config: BridgeConfig, env: NodeJS.ProcessEnv, options: OxpServerCheck): Promise<void> {
  // Loaded only here, as the oxp-server command loads it: it brings the MCP client SDK.
  const { checkedAuth, startOxpServer } = await import('../reverse.js');
  const c = config.oxpServer;
  try {
    if (c.upstreams.length === 0) throw new Error('oxp-server needs at least one MCP server: --mcp-url, --mcp-command, or oxpServer.upstreams');
    checkedAuth(c, env);
  } catch (error) {
    return report.fail('configuration', error instanceof Error ? error.message : String(error), 'fix the setting named above');
  }
  report.pass(`configuration valid (oxp-server on ${c.host}:${c.port}, ${c.upstreams.length} MCP server${c.upstreams.length === 1 ? '' : 's'})`);
  if (options.token !== undefined)
    report.skip('token', "doctor resolves MCP callers' tokens; the oxp-server's OXP clients send an API key or a JWT (oxpServer.apiKeys, jwtSecret)");
  let server;
  try {
    server = await startOxpServer(privateCopy(config), createLogger('silent'), VERSION, env);
  } catch (error) {
    return report.fail('starting the oxp-server', error instanceof Error ? error.message : String(error));
  }
  try {
    await server.upstreams.settled();
    for (const s of server.upstreams.status()) {
      if (s.connected)
        report.pass(`MCP server ${s.label}: connected (${s.transport ?? '?'}${s.protocolVersion ? `, ${s.protocolVersion}` : ''}), ${s.tools} tools`);
      else
        report.fail(
          `MCP server ${s.label}`,
          s.lastError ?? 'not connected',
          'check its command (it must speak MCP on stdin/stdout) or URL; the oxp-server keeps retrying on its own',
        );
    }
    const ids = await listIds(report, server.url);
    if (ids && options.call !== undefined) await callTool(report, server.url, options.call, options.args);
  } finally {
    await server.close();
  }
}

/** On a private loopback port, nobody's keys needed (nothing but this process reaches it), quiet, no console. */
function privateCopy(config: BridgeConfig): BridgeConfig {
  const { apiKeys: _keys, jwtSecret: _secret, ...oxpServer } = config.oxpServer;
  return {
    ...config,
    logLevel: 'silent',
    console: { ...config.console, enabled: false },
    oxpServer: { ...oxpServer, host: '127.0.0.1', port: 0, jwtAudiences: [] },
  };
}

/** `GET /tools` as an OXP client reads it: the tool ids; undefined (and a failed step) when there are none. */
async function listIds(report: StepReport, url: string): Promise<string[] | undefined> {
  const what = 'GET /tools';
  try {
    const res = await fetch(`${url}/tools`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    const body: unknown = await res.json();
    const items = isPlainObject(body) && Array.isArray(body.items) ? body.items : undefined;
    // 503: no MCP server has listed its tools yet; its message says so (this process's own answer, nothing secret).
    const said = res.status === 503 && isPlainObject(body) && typeof body.message === 'string' ? `: ${body.message.slice(0, 300)}` : '';
    if (!res.ok || !items) return void report.fail(what, `HTTP ${res.status}${said}`);
    const ids = items.map((t) => (isPlainObject(t) && typeof t.id === 'string' ? t.id : '(no id)'));
    if (ids.length === 0) return void report.fail(what, 'no tools listed', 'no MCP server connected, or its tools were all left out by tools.allow/deny');
    report.pass(`${what}: ${ids.length} tools (${ids.length <= 5 ? ids.join(', ') : `${ids.slice(0, 5).join(', ')}, …`})`);
    return ids;
  } catch (error) {
    return void report.fail(what, error instanceof Error ? error.message : String(error));
  }
}

/** One `POST /tools/call`, as an OXP client sends it. */
async function callTool(report: StepReport, url: string, tool: string, input: JsonObject): Promise<void> {
  const what = `POST /tools/call ${tool}`;
  try {
    const res = await fetch(`${url}/tools/call`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ request: { tool_id: tool, input } }),
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    const body: unknown = await res.json();
    const result = isPlainObject(body) && isPlainObject(body.result) ? body.result : undefined;
    const text = (v: unknown) => {
      const s = JSON.stringify(v) ?? '';
      return s.length > 120 ? `${s.slice(0, 117)}…` : s;
    };
    if (result?.success === true) report.pass(`${what}: ${text(result.value)}`);
    else if (result) report.fail(what, `the tool answered with an error: ${text(isPlainObject(result.error) ? result.error.message : result.error)}`);
    else
      report.fail(
        what,
        `HTTP ${res.status}: ${text(isPlainObject(body) ? (body.message ?? body) : body)}`,
        'the id is Toolkit.Tool or Toolkit.Tool@version, as GET /tools lists it',
      );
  } catch (error) {
    report.fail(what, error instanceof Error ? error.message : String(error));
  }
}
