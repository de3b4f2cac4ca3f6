/**
 * An OXP `missing_requirements.authorization` challenge reaches each client
 * in the most useful form its revision and declared capabilities allow:
 * - 2026-07-28 with URL elicitation: `input_required` → the client shows the
 *   URL → retry with the signed requestState → the bridge polls check_url and
 *   calls again with the SAME call_id → the result;
 * - 2025-11-25 with URL elicitation: the -32042 error;
 * - everyone else: an isError result with the link and a JSON block.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createLogger } from '../../src/platform/log.js';
import { startBridge, type RunningBridge } from '../../src/commands/forward.js';
import { startOxpFixture, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { MCP_HEADERS, MODERN_META, modernHeaders, readMessages, testConfig } from '../helpers/bridge-harness.js';
import { assertValidServerMessage } from '../helpers/mcp-schema.js';
import { cliArgs } from '../helpers/ts-entry.js';

const AUTH_URL = 'https://auth.example/authorize?flow=42';

describe('authorization challenges', () => {
  let fixture: OxpFixtureServer;
  let bridge: RunningBridge;
  let checkServer: ReturnType<typeof createServer>;
  let checkUrl = '';
  let checkPolls = 0;
  /** Call ids that have been authorized (the check_url reached "completed" after them). */
  const authorized = new Set<string>();
  const callIds: string[] = [];

  before(async () => {
    // The provider's status endpoint: pending, pending, then completed.
    checkServer = createServer((_req, res) => {
      checkPolls += 1;
      const done = checkPolls % 3 === 0;
      if (done) for (const id of callIds) authorized.add(id);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ status: done ? 'completed' : 'pending' }));
    });
    await new Promise<void>((r) => checkServer.listen(0, '127.0.0.1', r));
    checkUrl = `http://127.0.0.1:${(checkServer.address() as AddressInfo).port}/status`;
    fixture = await startOxpFixture({
      tools: [
        {
          id: 'Gmail.GetEmails',
          name: 'Gmail_GetEmails',
          version: '1.2.0',
          description: 'Gets emails',
          input_schema: { type: 'object', properties: { query: { type: 'string' } } },
          output_schema: { type: 'object' },
          requirements: { authorization: [{ id: 'google', oauth2: { scopes: ['gmail.readonly'] } }] },
          handler: (req) => {
            callIds.push(req.call_id!);
            return authorized.has(req.call_id!)
              ? { value: { emails: [{ id: '1', subject: 'Welcome' }] } }
              : {
                  http: {
                    status: 400,
                    body: {
                      message: 'Authorization required',
                      missing_requirements: { authorization: [{ id: 'google', url: AUTH_URL, check_url: checkUrl }] },
                    },
                  },
                };
          },
        },
      ],
    });
    const config = testConfig(['--oxp-url', fixture.url]);
    config.upstream.authorizationPollMs = 20;
    // The provider's status endpoint is on another origin than the tool server: the operator allows it.
    config.upstream.authorizationCheckOrigins = [new URL(checkUrl).origin];
    bridge = await startBridge(config, createLogger('silent'));
  });
  after(async () => {
    await bridge.close();
    await fixture.close();
    checkServer.close();
  });

  it('2026-07-28 + URL elicitation: input_required, the user opens the URL, the retry resumes the same call_id', async () => {
    callIds.length = 0;
    const shown: { mode?: string; url?: string; message?: string }[] = [];
    const client = new Client(
      { name: 'auth-test', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { url: {} } } },
    );
    client.setRequestHandler('elicitation/create', async (request) => {
      shown.push(request.params);
      return { action: 'accept' };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(bridge.mcpUrl!)));
    try {
      const result = await client.callTool({ name: 'Gmail_GetEmails', arguments: { query: 'in:inbox' } });
      assert.deepEqual(result.structuredContent, { emails: [{ id: '1', subject: 'Welcome' }] });
      assert.equal(shown.length, 1);
      assert.equal(shown[0]!.mode, 'url');
      assert.equal(shown[0]!.url, AUTH_URL);
      assert.equal(callIds.length, 2);
      assert.equal(callIds[0], callIds[1], 'the resumed call reuses the call_id');
      assert.ok(checkPolls >= 3, 'check_url polled until completed');
    } finally {
      await client.close();
    }
  });

  it('2026-07-28: the input_required result is schema-valid and a tampered requestState is refused', async () => {
    const call = (params: Record<string, unknown>) =>
      fetch(bridge.mcpUrl!, {
        method: 'POST',
        headers: modernHeaders('tools/call', 'Gmail_GetEmails'),
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'Gmail_GetEmails', arguments: {}, ...params } }),
      }).then(readMessages);
    const meta = { ...MODERN_META, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { url: {} } } };
    const [first] = await call({ _meta: meta });
    assertValidServerMessage('2026-07-28', first, 'tools/call');
    const result = first!.result as { resultType: string; requestState: string; inputRequests: Record<string, { params: { url: string } }> };
    assert.equal(result.resultType, 'input_required');
    assert.equal(Object.values(result.inputRequests)[0]!.params.url, AUTH_URL);
    const forged = `${result.requestState.slice(0, -4)}AAAA`;
    const [refused] = await call({ _meta: meta, requestState: forged, inputResponses: { [Object.keys(result.inputRequests)[0]!]: { action: 'accept' } } });
    assert.equal((refused!.error as { code: number }).code, -32602);
    // A client that did not declare URL elicitation never receives one.
    const [plain] = await call({ _meta: MODERN_META });
    assertValidServerMessage('2026-07-28', plain, 'tools/call');
    assert.equal((plain!.result as { isError: boolean }).isError, true);
  });

  it('2026-07-28: declining leaves the tool uncalled', async () => {
    callIds.length = 0;
    const client = new Client(
      { name: 'auth-test', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { url: {} } } },
    );
    client.setRequestHandler('elicitation/create', async () => ({ action: 'decline' }));
    await client.connect(new StreamableHTTPClientTransport(new URL(bridge.mcpUrl!)));
    try {
      const result = await client.callTool({ name: 'Gmail_GetEmails', arguments: {} });
      assert.equal(result.isError, true);
      assert.match((result.content as { text: string }[])[0]!.text, /not granted/);
      assert.equal(callIds.length, 1, 'no second upstream call');
    } finally {
      await client.close();
    }
  });

  for (const transport of ['http', 'stdio'] as const) {
    it(`2025-11-25 + URL elicitation over ${transport}: the -32042 error carries the URL`, async () => {
      const client = new Client(
        { name: 'auth-test', version: '1' },
        { versionNegotiation: { mode: 'legacy' }, supportedProtocolVersions: ['2025-11-25'], capabilities: { elicitation: { url: {} } } },
      );
      await client.connect(
        transport === 'http'
          ? new StreamableHTTPClientTransport(new URL(bridge.mcpUrl!))
          : new StdioClientTransport({
              command: process.execPath,
              args: cliArgs(['--transport', 'stdio', '--oxp-url', fixture.url, '--log-level', 'silent']),
              cwd: process.cwd(),
            }),
      );
      try {
        await assert.rejects(
          client.callTool({ name: 'Gmail_GetEmails', arguments: {} }),
          (error: { code?: number; data?: { elicitations: { url: string; mode: string; elicitationId: string }[] } }) => {
            assert.equal(error.code, -32042);
            assert.equal(error.data?.elicitations[0]?.url, AUTH_URL);
            assert.equal(error.data?.elicitations[0]?.mode, 'url');
            assert.ok(error.data?.elicitations[0]?.elicitationId);
            return true;
          },
        );
      } finally {
        await client.close();
      }
    });
  }

  it('older clients, or 2025-11-25 without URL elicitation: an isError link plus machine-readable JSON', async () => {
    for (const version of ['2025-06-18', '2025-11-25']) {
      const res = await fetch(bridge.mcpUrl!, {
        method: 'POST',
        headers: { ...MCP_HEADERS, 'mcp-protocol-version': version },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'Gmail_GetEmails', arguments: {} } }),
      });
      const [msg] = await readMessages(res);
      assertValidServerMessage(version as '2025-06-18', msg, 'tools/call');
      const result = msg!.result as { isError: boolean; content: { text: string }[] };
      assert.equal(result.isError, true);
      assert.ok(result.content[0]!.text.includes(AUTH_URL));
      assert.deepEqual(JSON.parse(result.content[1]!.text), { authorization_url: AUTH_URL, check_url: checkUrl });
    }
  });
});
