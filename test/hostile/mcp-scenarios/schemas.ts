/**
 * Hostile MCP scenarios: schemas and values (served by ../hostile-mcp-server.ts,
 * written with ../mcp-kit.ts). Each lists the harmless `echo` beside the
 * hostile part, so a test can check the rest still serves.
 */
import { HARMLESS_TOOL, type HostileMcpScenario } from '../mcp-kit.js';

const REDOS_PATTERN = '^(a+)+$';
const DEEP = 5_000;

/** `{"a":{"a":…1…}}` nested `depth` objects deep, as text: JSON.stringify itself overflows the stack on it. */
function deepJsonText(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** Answers `method` with a result given as raw JSON text (one line). */
function rawResult(method: string, resultText: () => string): HostileMcpScenario['intercept'] {
  return (message, out) => {
    if (message.method !== method || message.id === undefined) return false;
    out.raw(`{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":${resultText()}}\n`);
    return true;
  };
}

export const SCHEMA_SCENARIOS: Record<string, HostileMcpScenario> = {
  /** A string parameter whose pattern backtracks catastrophically. */
  'redos-pattern': {
    tools: () => [
      HARMLESS_TOOL,
      { name: 'redos', description: 'ReDoS.', inputSchema: { type: 'object', properties: { text: { type: 'string', pattern: REDOS_PATTERN } } } },
    ],
  },
  /** One tool whose inputSchema is not an object at all, beside a good one. */
  'non-object-schema': {
    tools: () => [HARMLESS_TOOL, { name: 'broken', description: 'Broken.', inputSchema: 'not a schema' }],
  },
  /** One tool whose inputSchema nests 5,000 levels deep, beside a good one. */
  'deep-schema': {
    intercept: rawResult(
      'tools/list',
      () =>
        `{"tools":[${JSON.stringify(HARMLESS_TOOL)},{"name":"deep","description":"Deep.","inputSchema":{"type":"object","properties":{"x":${deepJsonText(DEEP)}}}}]}`,
    ),
  },
  /** A call whose structuredContent nests 5,000 levels deep. */
  'deep-result': {
    intercept: rawResult('tools/call', () => `{"content":[{"type":"text","text":"deep"}],"structuredContent":${deepJsonText(DEEP)}}`),
  },
};
