/**
 * The one workload every party serves: an MCP `tools/call` of a trivial tool
 * named `echo` (`{message}` → the message as text), in the two shapes the
 * bench drives — a 2026-07-28 request (per-request `_meta` envelope plus the
 * `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` headers) and a 2025-11-25
 * stateless request (the version header, no session, no envelope).
 */

export const TOOL_NAME = 'echo';
export const OXP_TOOL_ID = 'Bench.Echo';
export const OXP_TOOL_VERSION = '1.0.0';
export const MESSAGE = 'hello from the bench';

export const ECHO_INPUT_SCHEMA = {
  type: 'object',
  properties: { message: { type: 'string', description: 'The text to send back.' } },
  required: ['message'],
} as const;

export type Protocol = 'modern' | 'legacy';
export const PROTOCOLS: readonly Protocol[] = ['modern', 'legacy'];

export interface HttpRequestSpec {
  method: 'POST';
  path: string;
  headers: Record<string, string>;
  body: string;
}

const BASE_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** The `tools/call` request of one protocol shape, ready for autocannon or fetch. */
export function toolsCallRequest(protocol: Protocol, path = '/mcp'): HttpRequestSpec {
  const params: Record<string, unknown> = { name: TOOL_NAME, arguments: { message: MESSAGE } };
  if (protocol === 'modern') {
    params._meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    return {
      method: 'POST',
      path,
      headers: { ...BASE_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': TOOL_NAME },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
    };
  }
  return {
    method: 'POST',
    path,
    headers: { ...BASE_HEADERS, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
  };
}

/** A `tools/list` request (optionally for one cursor) in one protocol shape. */
export function toolsListRequest(protocol: Protocol, cursor?: string, path = '/mcp'): HttpRequestSpec {
  const params: Record<string, unknown> = cursor !== undefined ? { cursor } : {};
  if (protocol === 'modern') {
    params._meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    return {
      method: 'POST',
      path,
      headers: { ...BASE_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params }),
    };
  }
  return {
    method: 'POST',
    path,
    headers: { ...BASE_HEADERS, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params }),
  };
}

/** The OXP `POST /tools/call` body the bridge would send for the same call (the direct-OXP baseline). */
export function oxpCallRequest(callId = '00000000-0000-4000-8000-000000000000'): HttpRequestSpec {
  return {
    method: 'POST',
    path: '/tools/call',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ $schema: 'urn:oxp:1.0', request: { tool_id: `${OXP_TOOL_ID}@${OXP_TOOL_VERSION}`, call_id: callId, input: { message: MESSAGE } } }),
  };
}

/** The JSON-RPC messages of a Streamable HTTP answer (a JSON body, or SSE `data:` events). */
export function parseMcpBody(text: string, contentType: string | null): Record<string, unknown>[] {
  if ((contentType ?? '').includes('text/event-stream')) {
    return text
      .split(/\r?\n\r?\n/)
      .map((event) =>
        event
          .split(/\r?\n/)
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).trimStart())
          .join('\n'),
      )
      .filter((d) => d.trim() !== '')
      .map((d) => JSON.parse(d) as Record<string, unknown>);
  }
  const parsed = JSON.parse(text) as Record<string, unknown> | Record<string, unknown>[];
  return Array.isArray(parsed) ? parsed : [parsed];
}

/** Checks that a party answers `spec` as the bench expects (HTTP 200, the echoed text, no `isError`); throws otherwise. */
export async function checkAnswer(name: string, url: string, spec: HttpRequestSpec): Promise<void> {
  const res = await fetch(new URL(spec.path, url), { method: spec.method, headers: spec.headers, body: spec.body });
  const text = await res.text();
  const [message] = parseMcpBody(text, res.headers.get('content-type'));
  const result = message?.result as { content?: { text?: string }[]; isError?: boolean } | undefined;
  if (res.status !== 200 || !result || result.isError || result.content?.[0]?.text !== MESSAGE) {
    throw new Error(`${name}: unexpected answer to the benchmark request (HTTP ${res.status}): ${text.slice(0, 500)}`);
  }
}
