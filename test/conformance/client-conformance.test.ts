/**
 * The conformance suite's client scenarios that apply to a tools client, with
 * the bridge as the MCP client: oxp-server-client.ts starts the oxp-server
 * against the scenario's MCP server and drives it as an OXP client.
 *
 * - `initialize`: the handshake (the bridge negotiates in `auto` mode, so the
 *   suite's 2025 server first sees a `server/discover` probe);
 * - `tools_call`: lists and calls `add_numbers`;
 * - `sse-retry`: the tools/call SSE stream is closed after a priming event;
 *   the client must reconnect by GET after the `retry` delay, with
 *   Last-Event-ID, and still deliver the result.
 *
 * - at the 2026-07-28 wire, `tools_call` again and `request-metadata` (the
 *   per-request `_meta` every stateless request carries).
 *
 * Each must exit 0 with no FAILURE or WARNING check. The other client
 * scenarios (auth/*, elicitation defaults) test features a tools client that
 * reaches MCP servers without OAuth does not have.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertScenarioPassed, runConformance } from './conformance-cli.js';
import { tsEntryArgs } from '../helpers/ts-entry.js';

/** [scenario, spec revision it runs at]: the 2025-11-25 stateful wire, then the 2026-07-28 stateless one. */
const SCENARIOS = [
  ['initialize', '2025-11-25'],
  ['tools_call', '2025-11-25'],
  ['sse-retry', '2025-11-25'],
  ['tools_call', '2026-07-28'],
  ['request-metadata', '2026-07-28'],
] as const;
const SCENARIO_TIMEOUT_MS = 2 * 60_000;
// The project's own Node (20), by path: the CLI runs with the pinned Node 22 first on PATH.
const CLIENT_COMMAND = [process.execPath, ...tsEntryArgs('test/conformance/oxp-server-client.ts')].join(' ');

describe('MCP conformance client scenarios, the bridge (oxp-server) as the client', { timeout: SCENARIOS.length * SCENARIO_TIMEOUT_MS }, () => {
  let outRoot: string;
  let failed = false;
  before(() => {
    outRoot = mkdtempSync(join(tmpdir(), 'mcp-conformance-client-'));
  });
  after(() => {
    if (outRoot && !failed) rmSync(outRoot, { recursive: true, force: true });
  });

  for (const [scenario, revision] of SCENARIOS) {
    it(`${scenario} (${revision}) passes`, { timeout: SCENARIO_TIMEOUT_MS }, async () => {
      const outDir = join(outRoot, `${revision}-${scenario}`);
      const args = ['client', '--command', CLIENT_COMMAND, '--scenario', scenario, '--spec-version', revision, '--timeout', '60000', '-o', outDir];
      const run = await runConformance(args, SCENARIO_TIMEOUT_MS);
      try {
        assertScenarioPassed(run, outDir, scenario, '');
      } catch (error) {
        failed = true;
        throw error;
      }
    });
  }
});
