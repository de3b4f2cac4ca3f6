/**
 * The parts hostile MCP scenarios are written with. A scenario is raw
 * JSON-RPC — no SDK — so it can send what no well-behaved server would:
 * broken schemas, deep values, huge lines, silence.
 */
export type JsonRpcMessage = Record<string, unknown> & { id?: string | number | null; method?: string; params?: Record<string, unknown> };

export interface McpOut {
  /** One JSON-RPC message, serialised as one line (stdio) or one JSON body (HTTP). */
  send(message: unknown): void;
  /** Raw text written as is (stdio: no newline added). */
  raw(text: string): void;
}

export interface HostileMcpScenario {
  /** The tools/list answer's `tools` (default: one harmless tool `echo`). */
  tools?: () => unknown[];
  /** A tools/call's result (default: text "ok"). Return undefined to send nothing (silence). */
  call?: (params: Record<string, unknown>, out: McpOut, id: JsonRpcMessage['id']) => unknown;
  /** Sees every message first; return true when it answered (or chose not to). */
  intercept?: (message: JsonRpcMessage, out: McpOut) => boolean;
}

export const HARMLESS_TOOL = { name: 'echo', description: 'Echoes its text.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } };

const VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];

/** The answer (or undefined for none) of a plain server running `scenario`. */
export function answer(scenario: HostileMcpScenario, message: JsonRpcMessage, out: McpOut): void {
  if (scenario.intercept?.(message, out)) return;
  if (message.id === undefined || message.method === undefined) return; // notifications and responses
  const reply = (result: unknown) => out.send({ jsonrpc: '2.0', id: message.id, result });
  switch (message.method) {
    case 'initialize': {
      const asked = String(message.params?.['protocolVersion'] ?? '');
      return reply({
        protocolVersion: VERSIONS.includes(asked) ? asked : '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 'hostile', version: '1.0.0' },
      });
    }
    case 'ping':
      return reply({});
    case 'tools/list':
      return reply({ tools: scenario.tools ? scenario.tools() : [HARMLESS_TOOL] });
    case 'tools/call': {
      const result = scenario.call ? scenario.call(message.params ?? {}, out, message.id) : { content: [{ type: 'text', text: 'ok' }] };
      if (result !== undefined) reply(result);
      return;
    }
    default:
      out.send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } });
  }
}
