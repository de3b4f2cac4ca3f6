/** docs/configuration.md's examples: a bad value, the access policy, token exchange. */
import assert from 'node:assert/strict';
import { assertExit, mcpPost, type ExampleRun, type Scenario } from './example-run.js';

const CI_BOT_TOKEN = 'ci-bot-0123456789abcdef';

async function toolNames(r: ExampleRun, token?: string): Promise<{ status: number; names?: string[] }> {
  const answer = await mcpPost(r.url('http://127.0.0.1:8080/mcp'), { id: 1, method: 'tools/list' }, token ? { authorization: `Bearer ${token}` } : {});
  const result = answer.answer?.result as { tools: { name: string }[] } | undefined;
  return { status: answer.status, ...(result ? { names: result.tools.map((t) => t.name) } : {}) };
}

export const configurationScenarios: Scenario[] = [
  {
    name: 'configuration.md: a bad value stops the bridge with the key and its source',
    steps: [
      {
        id: 'config-bad-value',
        run: async (r) => {
          const result = await r.shell('config-bad-value');
          assertExit(result, 2);
          assert.match(result.stderr, /port \(from environment variable MCP_PORT\): must be <= 65535/);
        },
      },
    ],
  },
  {
    name: 'configuration.md: principals and the access policy',
    steps: [
      {
        id: 'config-access-secret',
        run: async (r) => {
          assertExit(await r.shell('config-access-secret'));
          assert.match(r.read('secrets/alice-token'), /^[0-9a-f]{64}$/);
        },
      },
      {
        id: 'config-access-policy',
        run: async (r) => {
          const env = { CI_BOT_TOKEN };
          const { path } = r.load('config-access-policy', 'bridge.yaml', env);
          await r.cli(['--config', path], 'http://127.0.0.1:8080/readyz', { env, status: 200 });
          const alice = await toolNames(r, r.read('secrets/alice-token'));
          assert.ok(alice.names?.includes('Doorbell_Ring'), `alice (oncall) lists Doorbell_Ring: ${alice.names?.join(', ')}`);
          const bot = await toolNames(r, CI_BOT_TOKEN);
          assert.ok(
            bot.names && !bot.names.includes('Doorbell_Ring') && bot.names.includes('Calculator_Add'),
            `ci-bot lists no Doorbell tool: ${bot.names?.join(', ')}`,
          );
          assert.equal((await toolNames(r)).status, 401, 'no token, no tools');
          await r.stopAll(); // doctor starts its own bridge; the example is read with the reader's bridge stopped
        },
      },
      {
        id: 'config-access-doctor',
        run: async (r) => {
          const result = await r.shell('config-access-doctor');
          assertExit(result);
          assert.match(result.stdout, /✓ token: principal ci-bot/);
          assert.match(result.stdout, /ci-bot may see and call 5 of 6 tools/);
          assert.match(result.stdout, /✗ Doorbell_Ring \(denied by rule no-doorbell\)/);
        },
      },
    ],
  },
  {
    name: 'configuration.md: token exchange',
    steps: [
      {
        id: 'config-token-exchange',
        run: async (r) => {
          const env = { CRM_EXCHANGE_SECRET: 'crm-exchange-secret' };
          const { path, config } = r.load('config-token-exchange', 'bridge.yaml', env);
          assert.equal(config.upstreams?.[0]?.tokenExchange?.use, 'bearer');
          // The upstream and the issuer are placeholders: the bridge starts, serves its OAuth metadata, and waits for them.
          await r.cli(['--config', path], 'http://127.0.0.1:8080/healthz', { env, status: 200 });
          const metadata = (await (await fetch(r.url('http://127.0.0.1:8080/.well-known/oauth-protected-resource'))).json()) as Record<string, unknown>;
          assert.equal(metadata.resource, 'https://mcp.example.com/mcp');
          assert.deepEqual(metadata.authorization_servers, ['https://id.example.com']);
          assert.equal((await toolNames(r)).status, 401, 'OAuth callers only');
        },
      },
    ],
  },
];
