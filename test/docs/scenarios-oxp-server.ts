/** docs/oxp-server.md's examples: the quick start over two upstreams, a tool policy, API keys, the access policy. */
import assert from 'node:assert/strict';
import { assertExit, jsonValues, type ExampleRun, type Scenario } from './example-run.js';

interface OxpTool {
  id: string;
  name: string;
  description: string;
}

async function oxpTools(r: ExampleRun, headers: Record<string, string> = {}): Promise<{ status: number; tools?: OxpTool[] }> {
  const response = await fetch(r.url('http://127.0.0.1:8090/tools'), { headers });
  if (!response.ok) return { status: response.status };
  return { status: response.status, tools: ((await response.json()) as { items: OxpTool[] }).items };
}

const ALICE_KEY = 'alice-key-0123456789abcdef';

export const oxpServerScenarios: Scenario[] = [
  {
    name: 'oxp-server.md: quick start, a stdio and a Streamable HTTP upstream',
    needs: ['curl'],
    steps: [
      // server-everything answers GET /mcp without a session with an error: any answer means it listens.
      { id: 'oxp-http-upstream', run: async (r) => void (await r.serve('oxp-http-upstream', 'http://127.0.0.1:3001/mcp')) },
      { id: 'oxp-quick-start', run: async (r) => void (await r.serve('oxp-quick-start', 'http://127.0.0.1:8090/health', { status: 200 })) },
      {
        id: 'oxp-quick-start-list',
        run: async (r) => {
          // Both upstreams listed (the one connected first makes /health 200).
          for (let i = 0; i < 100; i++) {
            const health = (await (await fetch(r.url('http://127.0.0.1:8090/health'))).json()) as { upstreams: { state: string }[] };
            if (health.upstreams.every((u) => u.state === 'connected')) break;
            await new Promise((resolve) => setTimeout(resolve, 200));
          }
          const result = await r.shell('oxp-quick-start-list');
          assertExit(result);
          const [health, tools] = jsonValues(result.stdout);
          assert.deepEqual(health, {
            status: 'ok',
            upstreams: [
              { toolkit: 'Local', state: 'connected', tools: 15 },
              { toolkit: 'Remote', state: 'connected', tools: 15 },
            ],
          });
          const ids = (tools as { items: OxpTool[] }).items.map((t) => t.id);
          assert.ok(ids.includes('Local.echo@2.0.0') && ids.includes('Remote.echo@2.0.0'), ids.join(', '));
        },
      },
      {
        id: 'oxp-quick-start-call',
        run: async (r) => {
          const result = await r.shell('oxp-quick-start-call');
          assertExit(result);
          const body = JSON.parse(result.stdout) as { $schema: string; result: { success: boolean; value: unknown } };
          assert.equal(body.$schema, 'urn:oxp:1.0');
          assert.equal(body.result.success, true, result.stdout);
          assert.equal(body.result.value, 'Echo: hi');
        },
      },
      {
        id: 'oxp-task-call',
        run: async (r) => {
          const result = await r.shell('oxp-task-call');
          assertExit(result);
          const body = JSON.parse(result.stdout) as { result: { success: boolean; value: unknown; duration: number } };
          assert.equal(body.result.success, true, result.stdout);
          assert.match(String(body.result.value), /^# Research Report: tides\n/);
          // Four stages of a second each: the call waited for the task.
          assert.ok(body.result.duration >= 3_000, result.stdout);
        },
      },
    ],
  },
  {
    name: 'oxp-server.md: a tool policy',
    steps: [
      {
        id: 'oxp-tool-policy',
        run: async (r) => {
          const { path } = r.load('oxp-tool-policy', 'oxp-server.yaml', {}, 'oxp-server');
          await r.cli(['oxp-server', '--config', path], 'http://127.0.0.1:8090/health', { status: 200 });
          const { tools } = await oxpTools(r);
          const byId = new Map(tools!.map((t) => [t.id, t]));
          assert.equal(byId.get('Everything.add@2.0.0')?.description, 'Adds two numbers, a and b.', [...byId.keys()].join(', '));
          assert.ok(byId.has('Everything.echo@1.1.0'), [...byId.keys()].join(', '));
          assert.deepEqual(
            [...byId.keys()].filter((id) => /trigger|toggle|get_sum/.test(id)),
            [],
          );
        },
      },
    ],
  },
  {
    name: 'oxp-server.md: API keys from the environment',
    steps: [
      {
        id: 'oxp-api-key',
        run: async (r) => {
          await r.serve('oxp-api-key', 'http://127.0.0.1:8090/health', { status: 200 });
          assert.equal((await oxpTools(r)).status, 401, 'no key');
          assert.equal((await oxpTools(r, { 'oxp-api-key': 'not-the-key-0123456789' })).status, 401, 'a wrong key');
        },
      },
    ],
  },
  {
    name: 'oxp-server.md: who may call what',
    steps: [
      {
        id: 'oxp-access-secret',
        run: async (r) => assertExit(await r.shell('oxp-access-secret')),
      },
      {
        id: 'oxp-access-policy',
        run: async (r) => {
          const bobKey = r.read('secrets/bob-key');
          const env = { ALICE_KEY };
          const { path } = r.load('oxp-access-policy', 'oxp-server.yaml', env, 'oxp-server');
          await r.cli(['oxp-server', '--config', path], 'http://127.0.0.1:8090/health', { env, status: 200 });
          const alice = await oxpTools(r, { 'oxp-api-key': ALICE_KEY });
          assert.equal(alice.tools?.length, 15, 'alice lists every tool');
          const bob = await oxpTools(r, { authorization: `Bearer ${bobKey}` });
          assert.deepEqual(bob.tools, [], 'bob lists none');
          const call = await fetch(r.url('http://127.0.0.1:8090/tools/call'), {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'oxp-api-key': bobKey },
            body: JSON.stringify({ request: { tool_id: 'Everything.echo', input: { message: 'hi' } } }),
          });
          assert.equal(call.status, 400, 'a hidden tool is an unknown id');
          assert.match(await call.text(), /was not found/);
        },
      },
    ],
  },
];
