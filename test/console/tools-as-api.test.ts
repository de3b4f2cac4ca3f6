/**
 * The bridge console's API and principals, without a browser: who the Tools view can show the catalog as (the
 * configured named tokens, the anonymous caller, someone described on the spot), the catalog as each sees it with
 * the rule that decides every tool (compared with what that principal's own tools/list returns), the caller named
 * in the overview, and the principal of each recorded call — an OAuth user's name, which comes from outside,
 * bounded and cleaned. No token value ever comes out.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningBridge } from '../../src/commands/forward.js';
import { demoFixtureTools, startOxpFixture, type OxpFixtureServer } from '../fixtures/oxp-fixture-server.js';
import { MCP_HEADERS, readMessages } from '../helpers/bridge-harness.js';
import { startOAuthServer, type OAuthServer } from '../helpers/oauth-server.js';
import { ALICE, BOB, POLICY, startWithConfig } from '../helpers/principals.js';

interface ToolRow {
  name: string;
  access?: { allowed: boolean; rule: { index: number; id?: string } | null };
}
interface ToolsAnswer {
  total: number;
  tools: ToolRow[];
  as?: { name: string; kind: string; groups: string[]; visible: number; hidden: number };
}

async function rpc(bridge: RunningBridge, token: string, id: number, method: string, params: Record<string, unknown>) {
  const res = await fetch(bridge.mcpUrl!, {
    method: 'POST',
    headers: { ...MCP_HEADERS, authorization: `Bearer ${token}`, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
  return (await readMessages(res)).find((m) => m.id === id)!;
}

describe('console API: the tools as a principal sees them', () => {
  let fixture: OxpFixtureServer;
  let bridge: RunningBridge;
  const api = async (path: string, token = ALICE) => {
    const res = await fetch(new URL(`/console/api/${path}`, bridge.mcpUrl), { headers: { authorization: `Bearer ${token}` } });
    const text = await res.text();
    for (const secret of [ALICE, BOB]) assert.ok(!text.includes(secret), `a token value in ${path}`);
    return { status: res.status, body: JSON.parse(text) as Record<string, unknown> };
  };
  const tools = async (query: string) => {
    const { status, body } = await api(`tools?${query}`);
    assert.equal(status, 200, JSON.stringify(body));
    return body as unknown as ToolsAnswer;
  };

  before(async () => {
    fixture = await startOxpFixture({ tools: demoFixtureTools() });
    bridge = await startWithConfig(POLICY, fixture.url);
  });
  after(async () => {
    await bridge?.close();
    await fixture?.close();
  });

  it('lists who the catalog can be shown as: the anonymous caller and the named tokens, with their groups', async () => {
    assert.equal((await fetch(new URL('/console/api/principals', bridge.mcpUrl))).status, 401, 'the console authentication');
    const { body } = await api('principals');
    assert.deepEqual(
      (body.principals as { id: string; name: string; kind: string; groups: string[] }[]).map((p) => [p.id, p.name, p.kind, p.groups.join()]),
      [
        ['anonymous', 'laptop', 'anonymous', 'local'],
        ['token:alice', 'alice', 'token', 'eng'],
        ['token:bob', 'bob', 'token', 'sales'],
      ],
    );
    assert.deepEqual(body.policy, { active: true, default: 'allow', rules: 4 });
    const overview = await api('overview', BOB);
    assert.deepEqual(overview.body.caller, { name: 'bob', kind: 'token', groups: ['sales'], scopes: [] }, 'the caller is named');
  });

  it('as a named token: only the tools it may call — the same names as its own tools/list — each with the deciding rule', async () => {
    const all = await tools('');
    assert.equal(all.as, undefined);
    assert.ok(
      all.tools.every((t) => t.access === undefined),
      'without `as`, the whole catalog as before',
    );
    const bob = await tools('as=token:bob');
    const listed = (await rpc(bridge, BOB, 1, 'tools/list', {})).result as { tools: { name: string }[] };
    assert.deepEqual(
      bob.tools.map((t) => t.name),
      listed.tools.map((t) => t.name),
    );
    assert.ok(
      bob.tools.every((t) => t.access?.allowed === true && t.access.rule === null),
      'no rule allows bob anything: access.default',
    );
    assert.deepEqual(bob.as, {
      name: 'bob',
      kind: 'token',
      groups: ['sales'],
      scopes: [],
      visible: bob.tools.length,
      hidden: all.total - bob.tools.length,
      hiddenShown: false,
    });

    const everything = await tools('as=token:bob&hidden=1');
    assert.equal(everything.total, all.total);
    const access = (name: string) => everything.tools.find((t) => t.name === name)!.access;
    assert.deepEqual(access('Doorbell_Ring'), { allowed: false, rule: { index: 1, id: 'no-doorbell' } });
    assert.deepEqual(access('Gmail_GetEmails'), { allowed: false, rule: { index: 2, id: 'no-mail' } });
    assert.deepEqual(access('Calculator_Add'), { allowed: true, rule: null });
    const alice = await tools('as=token:alice&hidden=1');
    assert.ok(alice.tools.every((t) => t.access?.allowed === true && t.access.rule?.id === 'eng-all'));
  });

  it('as the anonymous caller, and as someone described on the spot (an OAuth user with groups); a rule without id by its index', async () => {
    const anonymous = await tools('as=anonymous&hidden=1&q=doorbell');
    assert.deepEqual(
      anonymous.tools.map((t) => [t.name, t.access!.allowed, t.access!.rule?.id]),
      [['Doorbell_Ring', false, 'no-doorbell']],
    );
    const carol = await tools('as=custom&name=carol&hidden=1&q=calculator_add');
    assert.deepEqual(carol.as?.kind, 'oauth', 'a described principal is an OAuth user unless told');
    assert.deepEqual(carol.tools[0]!.access, { allowed: false, rule: { index: 3 } });
    const engineer = await tools(`as=custom&name=carol&groups=${encodeURIComponent('eng, other')}&q=calculator_add`);
    assert.deepEqual(engineer.tools[0]!.access, { allowed: true, rule: { index: 0, id: 'eng-all' } });
    assert.deepEqual(engineer.as?.groups, ['eng', 'other']);
  });

  it('answers 400 to a principal it does not know or cannot make', async () => {
    for (const query of [
      'as=token:nobody',
      'as=custom',
      'as=custom&name=x&kind=root',
      `as=custom&name=x&groups=${Array.from({ length: 65 }, (_, i) => `g${i}`).join()}`,
    ]) {
      const { status, body } = await api(`tools?${query}`);
      assert.equal(status, 400, query);
      assert.equal(typeof body.error, 'string');
    }
  });

  it('the Calls API names the principal of each call, denied calls included', async () => {
    assert.ok((await rpc(bridge, ALICE, 2, 'tools/call', { name: 'Calculator_Add', arguments: { a: 1, b: 2 } })).result);
    const denied = await rpc(bridge, BOB, 3, 'tools/call', { name: 'Gmail_GetEmails', arguments: {} });
    assert.match(JSON.stringify(denied.error), /Unknown tool/);
    const { body } = await api('calls');
    const recent = body.recent as { tool: string; outcome: string; principal: string; principalKind: string }[];
    assert.deepEqual(
      recent.slice(0, 2).map((c) => [c.tool, c.outcome, c.principal, c.principalKind]),
      [
        ['Gmail_GetEmails', 'denied', 'bob', 'token'],
        ['Calculator_Add', 'success', 'alice', 'token'],
      ],
    );
    // The same calls in /metrics, by the bounded label: a configured name.
    const metrics = await (await fetch(new URL('/metrics', bridge.mcpUrl))).text();
    assert.match(metrics, /mcp_oxp_bridge_principal_calls_total\{principal="bob",kind="token",outcome="denied"\} 1\n/);
    assert.match(metrics, /mcp_oxp_bridge_principal_calls_total\{principal="alice",kind="token",outcome="success"\} 1\n/);
  });
});

describe('console API: an OAuth caller named from outside', () => {
  it('its name, as long and odd as its token makes it, comes out of the Calls API bounded and cleaned', async () => {
    const AUDIENCE = 'http://127.0.0.1/mcp';
    const as: OAuthServer = await startOAuthServer({
      bridgeAudience: AUDIENCE,
      bridgeClient: { id: 'bridge', secret: 'bridge-secret-0123456789' },
      upstreamAudiences: [],
    });
    const fixture = await startOxpFixture({ tools: demoFixtureTools() });
    const config = `auth:\n  oauth: { issuer: '${as.issuer}', audience: '${AUDIENCE}', jwksUrl: '${as.jwksUrl}', resourceUrl: '${AUDIENCE}' }\n`;
    const bridge = await startWithConfig(config, fixture.url, {});
    try {
      const name = `<img src=x onerror=alert(1)>\u202e${'x'.repeat(500)}`;
      const token = await as.mintUserToken(name);
      const call = await rpc(bridge, token, 1, 'tools/call', { name: 'Calculator_Add', arguments: { a: 1, b: 1 } });
      assert.ok(call.result, JSON.stringify(call));
      const res = await fetch(new URL('/console/api/calls', bridge.mcpUrl), { headers: { authorization: `Bearer ${token}` } });
      const text = await res.text();
      assert.ok(!text.includes(token), 'the token never comes out');
      const [recorded] = (JSON.parse(text) as { recent: { principal: string; principalKind: string }[] }).recent;
      assert.equal(recorded!.principalKind, 'oauth');
      assert.equal(recorded!.principal, `<img src=x onerror=alert(1)>\ufffd${'x'.repeat(128 - 29)}… (${name.length} characters)`);
      const overview = (await (await fetch(new URL('/console/api/overview', bridge.mcpUrl), { headers: { authorization: `Bearer ${token}` } })).json()) as {
        caller: { name: string; kind: string };
      };
      assert.equal(overview.caller.name, recorded!.principal);
      assert.equal(overview.caller.kind, 'oauth');
      const metrics = await (await fetch(new URL('/metrics', bridge.mcpUrl))).text();
      assert.match(metrics, /mcp_oxp_bridge_principal_calls_total\{principal="oauth",kind="oauth",outcome="success"\} 1\n/);
      assert.ok(!metrics.includes('onerror'), 'an OAuth user name never becomes a label');
    } finally {
      await bridge.close();
      await fixture.close();
      await as.close();
    }
  });
});
