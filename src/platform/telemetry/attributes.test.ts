import { it } from 'node:test';
import assert from 'node:assert/strict';
import * as semconv from '@opentelemetry/semantic-conventions';
import * as incubating from '@opentelemetry/semantic-conventions/incubating';
import { ATTR, EXECUTE_TOOL, publicUrl } from './attributes.js';

it("the standard attribute names are the semantic conventions' (1.45)", () => {
  /* eslint-disable @typescript-eslint/no-deprecated -- the incubating names the bridge emits today, deprecated in semconv 1.45 (moved to the GenAI conventions) */
  const standard: Record<string, string> = {
    mcpMethod: incubating.ATTR_MCP_METHOD_NAME,
    mcpProtocolVersion: incubating.ATTR_MCP_PROTOCOL_VERSION,
    toolName: incubating.ATTR_GEN_AI_TOOL_NAME,
    toolCallId: incubating.ATTR_GEN_AI_TOOL_CALL_ID,
    operation: incubating.ATTR_GEN_AI_OPERATION_NAME,
    rpcStatus: incubating.ATTR_RPC_RESPONSE_STATUS_CODE,
    /* eslint-enable @typescript-eslint/no-deprecated */
    errorType: semconv.ATTR_ERROR_TYPE,
    httpMethod: semconv.ATTR_HTTP_REQUEST_METHOD,
    httpStatus: semconv.ATTR_HTTP_RESPONSE_STATUS_CODE,
    urlFull: semconv.ATTR_URL_FULL,
    urlPath: semconv.ATTR_URL_PATH,
    serverAddress: semconv.ATTR_SERVER_ADDRESS,
    serverPort: semconv.ATTR_SERVER_PORT,
  };
  for (const [key, name] of Object.entries(standard)) assert.equal(ATTR[key as keyof typeof ATTR], name, key);
  assert.equal(EXECUTE_TOOL, incubating.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL);
  for (const key of Object.keys(ATTR).filter((k) => !(k in standard))) assert.match(ATTR[key as keyof typeof ATTR], /^mcp_oxp_bridge\./);
});

it('upstream URLs lose user info and query before they go on a span', () => {
  assert.deepEqual(publicUrl('https://u:p@api.example.com/oxp/tools/call?key=secret'), {
    full: 'https://api.example.com/oxp/tools/call',
    address: 'api.example.com',
    port: 443,
  });
  assert.deepEqual(publicUrl('http://127.0.0.1:8080/tools'), { full: 'http://127.0.0.1:8080/tools', address: '127.0.0.1', port: 8080 });
});
