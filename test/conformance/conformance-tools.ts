/**
 * OXP fixture tools for the MCP conformance suite
 * (`@modelcontextprotocol/conformance@0.1.16`, `conformance server`).
 *
 * Each tool's OXP `name` is exactly the MCP tool name a scenario calls, so the
 * bridge keeps it as the MCP name (see src/core/catalog.ts). Only scenarios a
 * tools-only OXP bridge can serve have a tool here:
 *
 * - tools-list: every tool needs a non-empty name, description and inputSchema.
 * - tools-call-simple-text: `tools/call {name:"test_simple_text"}` (no
 *   `arguments` key) needs a content block `{type:"text", text:<non-empty>}`;
 *   a string value is emitted as that text.
 * - tools-call-error: `test_error_handling` needs `isError: true` and a
 *   non-empty `content[0].text` (a JSON-RPC error fails); an OXP tool error
 *   `{success:false, error:{message}}` maps to exactly that.
 * - json-schema-2020-12: `json_schema_2020_12_tool` is only listed, never
 *   called; its inputSchema must keep `$schema` (2020-12), `$defs.address`
 *   and `additionalProperties: false`. The schema below is the scenario's own.
 * - server-sse-polling: `test_reconnection` must answer with a non-error
 *   result (an `isError: true` result on the stream is a FAILURE).
 */
import type { FixtureTool } from '../fixtures/oxp-fixture-server.js';

export const SIMPLE_TEXT = 'This is a simple text response for testing.';
export const ERROR_TEXT = 'This tool intentionally returns an error for testing';
export const JSON_SCHEMA_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

const noArguments = (): Record<string, unknown> => ({ type: 'object', properties: {} });

/** Fresh objects on every call, so tests may mutate them. */
export function conformanceTools(): FixtureTool[] {
  return [
    {
      id: 'Conformance.SimpleText',
      name: 'test_simple_text',
      description: 'Returns a simple text response (MCP conformance scenario tools-call-simple-text).',
      version: '1.0.0',
      input_schema: noArguments(),
      output_schema: { type: 'string', description: 'A fixed text.' },
      handler: () => ({ value: SIMPLE_TEXT }),
    },
    {
      id: 'Conformance.ErrorHandling',
      name: 'test_error_handling',
      description: 'Always fails with a tool error (MCP conformance scenario tools-call-error).',
      version: '1.0.0',
      input_schema: noArguments(),
      handler: () => ({
        error: {
          message: ERROR_TEXT,
          developer_message: 'Scripted failure of the conformance fixture; never shown to MCP clients.',
          can_retry: false,
        },
      }),
    },
    {
      id: 'Conformance.JsonSchema2020_12',
      name: 'json_schema_2020_12_tool',
      description: 'Tool with JSON Schema 2020-12 features',
      version: '1.0.0',
      input_schema: {
        $schema: JSON_SCHEMA_2020_12,
        type: 'object',
        $defs: {
          address: {
            type: 'object',
            properties: {
              street: { type: 'string' },
              city: { type: 'string' },
            },
          },
        },
        properties: {
          name: { type: 'string' },
          address: { $ref: '#/$defs/address' },
        },
        additionalProperties: false,
      },
      handler: (req) => ({ value: req.input ?? {} }),
    },
    {
      id: 'Conformance.Reconnection',
      name: 'test_reconnection',
      description:
        'Answers after a short delay (MCP conformance scenario server-sse-polling; the OXP bridge cannot close the stream mid-call).',
      version: '1.0.0',
      input_schema: noArguments(),
      output_schema: { type: 'string' },
      handler: () => ({ delayMs: 50, then: { value: 'Reconnection test completed.' } }),
    },
  ];
}
