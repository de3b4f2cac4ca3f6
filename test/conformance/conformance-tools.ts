/**
 * OXP fixture tools for the MCP conformance suite
 * (`@modelcontextprotocol/conformance`, pinned in cli/package.json; `conformance server`).
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
 *   called; its inputSchema must reach the client verbatim (see
 *   jsonSchema2020_12()). The schema is the scenario's own.
 * - server-sse-polling: `test_reconnection` must answer with a non-error
 *   result (an `isError: true` result on the stream is a FAILURE).
 * - tools-call-with-progress: `test_tool_with_progress` is slow; the bridge,
 *   not the tool, sends >= 3 increasing notifications/progress while the OXP
 *   call runs (the test sets upstream.progressIntervalMs to 100 ms).
 * - server-stateless (2026-07-28): `test_logging_tool` and
 *   `test_streaming_elicitation` are the diagnostic tools whose checks are
 *   about the bridge itself (no notifications/message without a log level;
 *   no request of the server's own on a call's response stream). The other
 *   diagnostic tools (`test_missing_capability`, which needs a tool that
 *   requires the client's sampling capability, and `test_trigger_tool_change`)
 *   cannot exist behind OXP: see expected-failures-2026-07-28.yml.
 * - http-header-validation calls the first listed tool without the tasks
 *   extension: `about`, a plain tool, sorts before the task tools.
 * - tasks-* (the 2026-07-28 tasks extension): `greet`, `slow_compute`,
 *   `failing_job`, `protocol_error_job`, `confirm_delete`, `multi_input` and
 *   `test_tool_with_task`, with the task support each needs: see
 *   conformance-task-tools.ts.
 */
import type { FixtureTool } from '../fixtures/oxp-fixture-server.js';
import { taskTools } from './conformance-task-tools.js';

export const SIMPLE_TEXT = 'This is a simple text response for testing.';
export const ERROR_TEXT = 'This tool intentionally returns an error for testing';
export const JSON_SCHEMA_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

const noArguments = (): Record<string, unknown> => ({ type: 'object', properties: {} });

/** How long test_tool_with_progress works: many progress intervals of the test's bridge (100 ms), so >= 3 notifications arrive even on a loaded machine. */
export const PROGRESS_TOOL_DELAY_MS = 1_000;

/**
 * The json-schema-2020-12 scenario's own schema (0.2.0-alpha.12): besides `$schema`, `$defs`,
 * `$ref` and `additionalProperties`, the 2026-07-28 checks (SEP-2106) require the composition
 * (`allOf`/`anyOf`), conditional (`if`/`then`/`else`) and `$anchor` keywords to reach the MCP
 * client verbatim, so the bridge must pass the OXP input_schema through untouched.
 */
export function jsonSchema2020_12(): Record<string, unknown> {
  return {
    $schema: JSON_SCHEMA_2020_12,
    type: 'object',
    $defs: {
      address: {
        $anchor: 'addressDef',
        type: 'object',
        properties: { street: { type: 'string' }, city: { type: 'string' } },
      },
    },
    properties: {
      name: { type: 'string' },
      address: { $ref: '#/$defs/address' },
      contactMethod: { type: 'string', enum: ['phone', 'email'] },
      phone: { type: 'string' },
      email: { type: 'string' },
    },
    allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
    if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
    then: { required: ['phone'] },
    else: { required: ['email'] },
    additionalProperties: false,
  };
}

/** Fresh objects on every call, so tests may mutate them. */
export function conformanceTools(): FixtureTool[] {
  return [
    // Listed first (names sort): http-header-validation calls the first listed tool without the tasks extension, and
    // confirm_delete, which would be first, requires tasks (-32021 for such a client, as the extension says).
    {
      id: 'Conformance.About',
      name: 'about',
      version: '1.0.0',
      description: 'Says what this toolkit is.',
      input_schema: noArguments(),
      handler: () => ({ value: 'The MCP conformance toolkit behind mcp-oxp-bridge.' }),
    },
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
      input_schema: jsonSchema2020_12(),
      handler: (req) => ({ value: req.input ?? {} }),
    },
    {
      id: 'Conformance.Reconnection',
      name: 'test_reconnection',
      description: 'Answers after a short delay (MCP conformance scenario server-sse-polling; the OXP bridge cannot close the stream mid-call).',
      version: '1.0.0',
      input_schema: noArguments(),
      output_schema: { type: 'string' },
      handler: () => ({ delayMs: 50, then: { value: 'Reconnection test completed.' } }),
    },
    {
      id: 'Conformance.SlowWork',
      name: 'test_tool_with_progress',
      description: 'Works for a second (MCP conformance scenario tools-call-with-progress: the bridge reports progress while the OXP call runs).',
      version: '1.0.0',
      input_schema: noArguments(),
      output_schema: { type: 'string' },
      handler: () => ({ delayMs: PROGRESS_TOOL_DELAY_MS, then: { value: 'Slow work completed.' } }),
    },
    {
      id: 'Conformance.Logging',
      name: 'test_logging_tool',
      description: 'An ordinary tool (server-stateless: no notifications/message may reach a client that set no log level).',
      version: '1.0.0',
      input_schema: noArguments(),
      output_schema: { type: 'string' },
      handler: () => ({ value: 'Logged nothing to the client.' }),
    },
    {
      id: 'Conformance.StreamingElicitation',
      name: 'test_streaming_elicitation',
      description:
        'A tool that works briefly (server-stateless: the response stream of a call may carry notifications and the result, never a request of its own).',
      version: '1.0.0',
      input_schema: noArguments(),
      output_schema: { type: 'string' },
      handler: () => ({ delayMs: 200, then: { value: 'Finished without asking the client anything.' } }),
    },
    ...taskTools(),
  ];
}
