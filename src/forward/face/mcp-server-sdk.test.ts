/** The literals the bridge's own encoder (core/mcp-encode.ts) writes, held to the SDK's constants. */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { SERVER_INFO_META_KEY as OWN } from '../../core/mcp-encode.js';
import { SERVER_INFO_META_KEY } from './mcp-server-sdk.js';

it("core/mcp-encode.ts's serverInfo key is the SDK's", () => {
  assert.equal(OWN, SERVER_INFO_META_KEY);
});
