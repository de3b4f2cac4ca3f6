/** The literals the bridge holds for the SDK — its own encoder's (core/mcp-encode.ts) and the edge's (mcp-sdk-facts.ts) — held to the SDK's constants. */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import * as sdk from '@modelcontextprotocol/server';
import { SERVER_INFO_META_KEY as OWN } from '../../core/mcp-encode.js';
import { SERVER_INFO_META_KEY } from './mcp-server-sdk.js';
import * as facts from './mcp-sdk-facts.js';

it("core/mcp-encode.ts's serverInfo key is the SDK's", () => {
  assert.equal(OWN, SERVER_INFO_META_KEY);
});

it("mcp-sdk-facts.ts's constants are the SDK's", () => {
  for (const key of [
    'PROTOCOL_VERSION_META_KEY',
    'CLIENT_INFO_META_KEY',
    'CLIENT_CAPABILITIES_META_KEY',
    'TRACEPARENT_META_KEY',
    'TRACESTATE_META_KEY',
  ] as const)
    assert.equal(facts[key], sdk[key], key);
  assert.deepEqual(facts.SDK_SUPPORTED_PROTOCOL_VERSIONS, sdk.SUPPORTED_PROTOCOL_VERSIONS);
});
