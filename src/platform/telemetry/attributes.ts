/**
 * Span attribute names. The standard ones are the OpenTelemetry semantic
 * conventions' (1.45: MCP, GenAI tool, HTTP, error), an owned copy of the
 * package's constants (docs/design.md, "Owned copies of library code"): the
 * MCP, GenAI and RPC names are unstable ones, which the package's README
 * asks instrumentations to copy rather than import (its `incubating` entry
 * may break in a minor release); the stable ones (HTTP, URL, server, error)
 * are copied so that naming an attribute loads no OpenTelemetry module when
 * tracing is off, which importing them would add to the start-up
 * (`npm run bench:receipts -- attributes`; the figure:
 * bench/README.md#owned-copies-receipts-issue-31). attributes.test.ts pins
 * every literal to @opentelemetry/semantic-conventions. Delete the stable
 * ones when that entry loads within ~2 % of the start-up, an unstable one
 * when it becomes stable. The bridge's own live under `mcp_oxp_bridge.`.
 *
 * Never an attribute: arguments, results, upstream messages, secrets, tokens.
 */
export const ATTR = {
  mcpMethod: 'mcp.method.name',
  mcpProtocolVersion: 'mcp.protocol.version',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  operation: 'gen_ai.operation.name',
  rpcStatus: 'rpc.response.status_code',
  errorType: 'error.type',
  httpMethod: 'http.request.method',
  httpStatus: 'http.response.status_code',
  urlFull: 'url.full',
  urlPath: 'url.path',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  /** The upstream's configured name (MCP → OXP) or label (oxp-server). */
  upstream: 'mcp_oxp_bridge.upstream',
  /** The call's outcome in the bridge's words (success, tool_error, timeout, circuit_open, ...). */
  outcome: 'mcp_oxp_bridge.outcome',
  /** 1 for the first attempt of a call; retries count up. */
  attempt: 'mcp_oxp_bridge.attempt',
  /** The upstream's circuit after this attempt was recorded: closed, open or half_open. */
  circuit: 'mcp_oxp_bridge.circuit.state',
  /** Tools in the catalog a refresh loaded. */
  tools: 'mcp_oxp_bridge.catalog.tools',
} as const;

/** `gen_ai.operation.name` of a tool call. */
export const EXECUTE_TOOL = 'execute_tool';

/** An upstream URL fit for a span: no user info, no query (either may carry a credential). */
export function publicUrl(url: string): { full: string; address: string; port: number } | undefined {
  try {
    const u = new URL(url);
    const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
    return { full: `${u.protocol}//${u.host}${u.pathname}`, address: u.hostname, port };
  } catch {
    return undefined;
  }
}
