/**
 * Real MCP clients (SDK v2 legacy pinned to each 2025-era revision, SDK v2
 * modern pinned to 2026-07-28, SDK v1 at each 2025-era revision) drive the
 * bridge over real Streamable HTTP; every message they receive is validated
 * against the official schema of the revision in force, and every result is
 * checked for exactly that revision's shape (test/helpers/it-cases.ts).
 */
import { after, before, describe } from 'node:test';
import { startOxpFixture, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { integrationTools, startHttpBridge, type HttpBridge } from '../helpers/it-bridge.js';
import { defineClientCases } from '../helpers/it-cases.js';
import { ALL_CLIENT_SPECS, connectHttp, type McpSession } from '../helpers/it-clients.js';

describe('MCP clients over Streamable HTTP, every revision', () => {
  let fixture: OxpFixtureServer;
  let bridge: HttpBridge;
  before(async () => {
    fixture = await startOxpFixture({ tools: integrationTools() });
    bridge = await startHttpBridge(fixture.url);
  });
  after(async () => {
    await bridge?.close();
    await fixture?.close();
  });

  for (const s of ALL_CLIENT_SPECS) {
    describe(s.label, () => {
      let session: McpSession;
      before(async () => {
        session = await connectHttp(s, bridge.mcpUrl);
      });
      after(async () => {
        await session?.close();
      });
      defineClientCases(s, () => session, integrationTools);
    });
  }
});
