/**
 * Several OXP upstreams from one config file: each with its own credentials,
 * retry policy and secrets; colliding names namespaced; allow/deny lists,
 * renames, description overrides and fixed arguments; /readyz and metrics per
 * upstream.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type LoadedConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/platform/log.js';
import { startBridge, type RunningBridge } from '../../src/commands/forward.js';
import { startOxpFixture, type FixtureTool, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { MCP_HEADERS, readMessages } from '../helpers/bridge-harness.js';
import { assertValidServerMessage } from '../helpers/mcp-schema.js';

const VERSION = '2025-11-25';
const echo = (id: string, name: string, extra: Partial<FixtureTool> = {}): FixtureTool => ({
  id,
  name,
  version: '1.0.0',
  description: `${id} upstream description`,
  input_schema: { type: 'object', properties: { q: { type: 'string' } } },
  output_schema: { type: 'object' },
  handler: (req) => ({
    value: { served_by: id, input: req.input ?? {}, secret: (req.context?.['secrets'] as { id: string; value: string }[] | undefined)?.[0]?.value ?? null },
  }),
  ...extra,
});

describe('many upstreams', () => {
  let crm: OxpFixtureServer;
  let docs: OxpFixtureServer;
  let bridge: RunningBridge;
  const env = { CRM_KEY: 'crm-api-key-1', DOCS_TOKEN: 'docs-bearer-2', DOCS_SMTP: 'docs-only-secret' };
  const lines: Record<string, unknown>[] = [];

  before(async () => {
    crm = await startOxpFixture({
      auth: { apiKey: env.CRM_KEY },
      tools: [
        echo('Crm.Search', 'Search'),
        echo('Crm.AddContact', 'Add_Contact'),
        echo('Crm.DeleteAll', 'Delete_All'),
        echo('Crm.Send', 'Send_Mail', {
          input_schema: {
            type: 'object',
            properties: { to: { type: 'string' }, from: { type: 'string' } },
            required: ['to', 'from'],
            additionalProperties: false,
          },
        }),
      ],
    });
    docs = await startOxpFixture({
      auth: { bearer: env.DOCS_TOKEN },
      tools: [echo('Docs.Search', 'Search'), echo('Docs.Notify', 'Notify', { requirements: { secrets: [{ id: 'SMTP' }] } })],
    });
    const dir = mkdtempSync(join(tmpdir(), 'bridge-upstreams-'));
    const file = join(dir, 'bridge.yaml');
    writeFileSync(
      file,
      `port: 0
logLevel: silent
upstream:
  retry: { maxAttempts: 1 }
upstreams:
  - name: crm
    url: ${crm.url}
    apiKey: { env: CRM_KEY }
    retry: { maxAttempts: 2 }
    tools:
      deny: ["Delete_*"]
      rename: { Add_Contact: crm_add_contact, Add_Contcat: misspelled }
      descriptions: { Add_Contact: "Add a contact to the CRM.", Delete_All: "denied above, so this does nothing" }
      fixedArguments: { Send_Mail: { from: "noreply@example.com" } }
  - name: docs
    url: ${docs.url}
    bearerToken: { env: DOCS_TOKEN }
    secrets: { SMTP: { env: DOCS_SMTP } }
`,
    );
    const loaded = loadConfig(['--config', file], env) as LoadedConfig;
    bridge = await startBridge(
      loaded.config,
      createLogger('warn', { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) }),
      env,
    );
  });
  after(async () => {
    await bridge.close();
    await crm.close();
    await docs.close();
  });

  const rpc = async (method: string, params?: Record<string, unknown>) => {
    const res = await fetch(bridge.mcpUrl!, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-protocol-version': VERSION },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params ? { params } : {}) }),
    });
    const [msg] = await readMessages(res);
    assertValidServerMessage(VERSION, msg, method);
    return msg!;
  };

  it('merges both catalogs: collisions prefixed, policies applied', async () => {
    const tools = ((await rpc('tools/list')).result as { tools: { name: string; description: string; inputSchema: Record<string, unknown> }[] }).tools;
    assert.deepEqual(
      tools.map((t) => t.name),
      ['Notify', 'Send_Mail', 'crm_Search', 'crm_add_contact', 'docs_Search'],
    );
    assert.equal(tools.find((t) => t.name === 'crm_add_contact')!.description, 'Add a contact to the CRM.');
    assert.deepEqual(tools.find((t) => t.name === 'Send_Mail')!.inputSchema, {
      type: 'object',
      properties: { to: { type: 'string' } },
      required: ['to'],
      additionalProperties: false,
    });
  });

  it("routes each call to its upstream with that upstream's credentials and secrets", async () => {
    const call = async (name: string, args: Record<string, unknown> = {}) =>
      ((await rpc('tools/call', { name, arguments: args })).result as { structuredContent: Record<string, unknown> }).structuredContent;
    assert.equal((await call('crm_Search', { q: 'x' })).served_by, 'Crm.Search');
    assert.equal((await call('docs_Search', { q: 'x' })).served_by, 'Docs.Search');
    assert.deepEqual(await call('Send_Mail', { to: 'a@b.c' }), { served_by: 'Crm.Send', input: { to: 'a@b.c', from: 'noreply@example.com' }, secret: null });
    assert.equal((await call('Notify')).secret, 'docs-only-secret');
    assert.ok(crm.requests.every((r) => r.path === '/health' || r.headers['oxp-api-key'] === env.CRM_KEY));
    assert.ok(docs.requests.every((r) => r.path === '/health' || r.headers['authorization'] === `Bearer ${env.DOCS_TOKEN}`));
  });

  it('warns once of the policy keys that name no tool the upstream publishes (a typo, a denied tool)', () => {
    const warned = lines.filter((l) => String(l.msg).startsWith('tool policy keys that name no tool'));
    assert.deepEqual(
      warned.map((l) => [l.level, l.upstream, l.keys]),
      [[40, 'crm', ['tools.descriptions.Delete_All', 'tools.rename.Add_Contcat']]],
    );
  });

  it('a client cannot override a fixed argument, nor call a denied tool', async () => {
    const override = (await rpc('tools/call', { name: 'Send_Mail', arguments: { to: 'a@b.c', from: 'attacker@example.com' } })).result as { isError?: boolean };
    assert.equal(override.isError, true, 'rejected by the schema the client was shown');
    const denied = await rpc('tools/call', { name: 'Delete_All', arguments: {} });
    assert.equal((denied.error as { code: number }).code, -32602);
  });

  it('reports readiness, circuits and metrics per upstream', async () => {
    const ready = await fetch(new URL('/readyz', bridge.mcpUrl));
    assert.equal(ready.status, 200);
    const body = (await ready.json()) as { ready: boolean; tools: number; upstreams: Record<string, { ready: boolean; circuit: string; tools: number }> };
    assert.deepEqual(Object.keys(body.upstreams), ['crm', 'docs']);
    assert.equal(body.upstreams.crm!.tools, 4);
    assert.equal(body.tools, 5);
    const metrics = await (await fetch(new URL('/metrics', bridge.mcpUrl))).text();
    assert.match(metrics, /mcp_oxp_bridge_catalog_tools\{upstream="crm"\} 4/);
    assert.match(metrics, /mcp_oxp_bridge_circuit_state\{upstream="docs"\} 0/);
    assert.match(
      metrics,
      /mcp_oxp_bridge_requests_total\{method="tools\/call",tool="docs_Search",upstream="docs",protocol_version="2025-11-25",outcome="success"\} 1/,
    );
  });
});

describe('upstreams configuration errors', () => {
  it('names a missing credential source and a duplicate name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bridge-upstreams-bad-'));
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, `upstreams:\n  - { name: a, url: "http://127.0.0.1:9", apiKey: { env: NOT_SET_ANYWHERE } }\n`);
    await assert.rejects(
      startBridge((loadConfig(['--config', file, '--port', '0'], {}) as LoadedConfig).config, createLogger('silent'), {}),
      /upstreams\[a\]\.apiKey: environment variable NOT_SET_ANYWHERE is not set/,
    );
    writeFileSync(file, `upstreams:\n  - { name: a, url: "http://127.0.0.1:9" }\n  - { name: a, url: "http://127.0.0.1:10" }\n`);
    await assert.rejects(startBridge((loadConfig(['--config', file, '--port', '0'], {}) as LoadedConfig).config, createLogger('silent'), {}), /used twice/);
  });
});
