/** README.md's examples: the quick start, both directions in five minutes, Claude Desktop's configuration. */
import assert from 'node:assert/strict';
import { connectStdio, spec } from '../helpers/it-clients.js';
import { demoFixtureTools, startOxpFixture } from '../fixtures/oxp-fixture-server.js';
import { assertExit, mcpAnswer, type ExampleRun, type Scenario } from './example-run.js';

/** An OXP server of the reader's own at the documented 127.0.0.1:9000 (the test fixture with the demo catalog). */
export async function ownOxpServer(r: ExampleRun): Promise<() => Promise<void>> {
  const fixture = await startOxpFixture({ tools: demoFixtureTools(), port: r.sandbox.port(9000) });
  return () => fixture.close();
}

interface ToolList {
  result: { tools: { name: string }[] };
}

export const readmeScenarios: Scenario[] = [
  {
    name: 'README: quick start',
    needs: ['curl'],
    steps: [
      // npm start bundles dist/ when a source is newer (no type check): seconds; the timeout allows a loaded machine.
      { id: 'quick-start', run: async (r) => void (await r.serve('quick-start', 'http://127.0.0.1:8080/readyz', { status: 200, timeoutMs: 300_000 })) },
      {
        id: 'quick-start-list',
        run: async (r) => {
          const result = await r.shell('quick-start-list');
          assertExit(result);
          const names = (mcpAnswer(result.stdout, 1) as unknown as ToolList).result.tools.map((t) => t.name);
          assert.ok(names.includes('Calculator_Add'), names.join(', '));
          assert.equal(names.length, 6, `"Calculator_Add and five more demo tools": ${names.join(', ')}`);
        },
      },
      {
        id: 'quick-start-doctor',
        run: async (r) => {
          const result = await r.shell('quick-start-doctor');
          assertExit(result);
          assert.match(result.stdout, /✓/);
          assert.doesNotMatch(result.stdout, /✗/);
          assert.match(result.stdout, /Calculator_Add/);
        },
      },
    ],
  },
  {
    name: 'README: both directions in five minutes',
    needs: ['curl'],
    steps: [
      {
        id: 'five-oxp-server',
        run: async (r) => {
          await r.serve('five-oxp-server', 'http://127.0.0.1:8090/health', { status: 200 });
          const tools = (await (await fetch(r.url('http://127.0.0.1:8090/tools'))).json()) as { items: { id: string }[] };
          assert.equal(tools.items.length, 15, `"its 15 tools": ${tools.items.map((t) => t.id).join(', ')}`);
        },
      },
      {
        id: 'five-oxp-call',
        run: async (r) => {
          const result = await r.shell('five-oxp-call');
          assertExit(result);
          const body = JSON.parse(result.stdout) as { $schema: string; result: { success: boolean; value: unknown; call_id: string } };
          assert.equal(body.$schema, 'urn:oxp:1.0');
          assert.equal(body.result.success, true, result.stdout);
          assert.equal(body.result.value, 'The sum of 1 and 2 is 3.');
        },
      },
      { id: 'five-bridge', run: async (r) => void (await r.serve('five-bridge', 'http://127.0.0.1:8080/readyz', { status: 200 })) },
      {
        id: 'five-mcp-call',
        run: async (r) => {
          const result = await r.shell('five-mcp-call');
          assertExit(result);
          assert.match(result.stdout, /^event: message$/m, 'a server-sent event');
          assert.deepEqual(mcpAnswer(result.stdout, 2), { result: { content: [{ type: 'text', text: 'The sum of 1 and 2 is 3.' }] }, jsonrpc: '2.0', id: 2 });
          for (const console of ['http://127.0.0.1:8080/console', 'http://127.0.0.1:8090/console']) {
            const page = await fetch(r.url(console));
            assert.equal(page.status, 200, `${console} serves the console`);
          }
        },
      },
    ],
  },
  {
    name: "README: Claude Desktop's configuration",
    setup: ownOxpServer,
    steps: [
      {
        id: 'claude-desktop',
        run: async (r) => {
          const config = JSON.parse(r.text('claude-desktop')) as {
            mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }>;
          };
          const server = config.mcpServers['oxp-tools']!;
          // As a host starts it: the command found on PATH, a working directory of its own, the given environment.
          const env = { ...r.sandbox.env(), ...server.env };
          delete env.MCP_PORT;
          delete env.OXP_SERVER_PORT;
          const session = await connectStdio(spec('v2-legacy', '2025-06-18'), { command: server.command, args: server.args, cwd: '/', env });
          try {
            const names = (await session.listTools()).tools.map((t) => t.name);
            assert.ok(names.includes('Calculator_Add'), `the OXP server's tools: ${names.join(', ')}`);
            const call = await session.callTool('Calculator_Add', { a: 1, b: 2 });
            assert.deepEqual(call.structuredContent, { sum: 3 });
          } finally {
            await session.close();
          }
        },
      },
    ],
  },
];
